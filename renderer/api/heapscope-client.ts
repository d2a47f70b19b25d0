import type {
  DroppedFileLike,
  EventName,
  FileEntry,
  HeapscopeBridge,
  HeapscopeEvents,
  HeapscopeService,
} from '../../shared/ipc/contract';
import { HEAPSCOPE_METHODS } from '../../shared/ipc/methods';
import { unwrap } from '../../shared/ipc/result';
import { AppError } from '../../shared/errors';

/**
 * The renderer's one door to the back end: a typed facade over `window.heapscope`.
 *
 * Every method resolves to the plain value or throws `AppError` with the back end's code intact
 * (the bridge returns `Result`s and never rejects). Stores and components receive a client
 * through `useClient()`; tests install a fake with `setClient()`, so nothing else ever reads
 * `window.heapscope` (ARCHITECTURE §9.10).
 */
export type HeapscopeClient = HeapscopeService & {
  readonly mode: 'electron' | 'browser';
  on<E extends EventName>(event: E, listener: (payload: HeapscopeEvents[E]) => void): () => void;
  fileFromDrop(file: DroppedFileLike): Promise<FileEntry>;
};

/** Wrap a bridge: one small closure per contract method, generated from the runtime method list. */
export function createClient(bridge: HeapscopeBridge): HeapscopeClient {
  const methods: Record<string, (req: unknown) => Promise<unknown>> = {};
  for (const m of HEAPSCOPE_METHODS) {
    const call = bridge[m] as (req: unknown) => Promise<Parameters<typeof unwrap>[0]>;
    methods[m] = async (req: unknown) => unwrap(await call.call(bridge, req));
  }
  return {
    ...(methods as unknown as HeapscopeService),
    mode: bridge.mode,
    on: (event, listener) => bridge.on(event, listener),
    fileFromDrop: async (file) => unwrap(await bridge.fileFromDrop(file)),
  };
}

let current: HeapscopeClient | null = null;

/**
 * Connect to the back end: the preload's bridge in Electron, or the WebSocket bridge in browser
 * mode (installed on demand so the Electron bundle never opens a socket).
 */
export async function connectClient(): Promise<HeapscopeClient> {
  if (current) return current;
  if (!window.heapscope) {
    const { installWsBridge } = await import('./ws-bridge');
    await installWsBridge();
  }
  if (!window.heapscope) throw new AppError('bug', 'no back end: window.heapscope was not installed');
  current = createClient(window.heapscope);
  return current;
}

/** The connected client; throws when called before `connectClient()` (a start-up ordering bug). */
export function useClient(): HeapscopeClient {
  if (!current) throw new AppError('bug', 'heapscope client used before connectClient()');
  return current;
}

/** Tests and the e2e harness swap in a fake (or reset with null). */
export function setClient(client: HeapscopeClient | null): void {
  current = client;
}
