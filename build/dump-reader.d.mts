// Types of build/dump-reader.mjs for the TypeScript scripts that import it (package-check, bench).
export declare const ROOT: string;
export declare const RIDS: string[];
export declare const STAGE_DIR: string;
export declare const HELPER_NAME: string;
export declare function publishDir(rid: string): string;
export declare function helperExecutable(rid: string): string;
export declare function hasDotnet(): boolean;
export declare function publishDumpReader(rid: string): string;
export declare function ridFor(platform: string, arch: string): string;
export declare function stageDumpReader(platform: string, arch: string): string | null;
