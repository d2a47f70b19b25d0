// Types of huge-pages.mjs for the TypeScript that imports it (electron/scripts/start.ts).
export function transparentHugePageMode(read?: (path: string) => string): string | null;
export function hugePagesEnvironment(env: NodeJS.ProcessEnv, system?: { platform?: NodeJS.Platform; mode?: () => string | null }): NodeJS.ProcessEnv | null;
