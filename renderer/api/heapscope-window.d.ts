import type { HeapscopeBridge } from '../../shared/ipc/contract';

// `window.heapscope` is installed by the Electron preload or by ws-bridge.ts (browser mode).
// Only api/heapscope-client.ts may touch it (enforced by review and by keeping it optional here,
// so every other use would have to handle `undefined`).
declare global {
  interface Window {
    heapscope?: HeapscopeBridge;
  }
}
export {};
