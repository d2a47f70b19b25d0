import type { EventName, MenuCommand, MethodName } from './contract.js';

/**
 * Runtime lists of the contract's methods and events: the single source the preload, the IPC
 * handlers, the WebSocket server and the ws-bridge are generated from.
 *
 * Adding a method: add it to `HeapscopeApi` AND here; `tsc` fails until both agree (the checks
 * below run in both directions), and every transport then picks it up without further edits
 * except its implementation in the back end's service table.
 */
export const HEAPSCOPE_METHODS = [
  'appInfo',
  'listFiles',
  'takePendingOpens',
  'pickFile',
  'registerPath',
  'removeRecent',
  'clearRecent',
  'open',
  'listSessions',
  'summary',
  'cancel',
  'close',
  'typeRows',
  'objectRows',
  'objectInfo',
  'references',
  'objectAtAddress',
  'dominatorChildren',
  'dominatorPath',
  'pathsToRoots',
  'generations',
  'diff',
  'trend',
  'trendDominators',
  'gcTimeline',
  'setRetained',
  'cancelSetRetained',
  'exportCsv',
  'saveSnapshot',
  'exportReport',
  'listProcesses',
  'captureProcess',
  'captureDump',
  'startGcMonitor',
  'stopGcMonitor',
  'gcMonitorRows',
  'gcMonitorStatus',
  'dominatorTypeGroups',
  'dominatorTypeInstances',
  'retainedBy',
  'computeAgain',
  'retainedByObjects',
  'inspections',
  'dominatorSunburst',
  'setIgnored',
  'stringRows',
  'stringInstances',
  'dumpRuntime',
  'dumpThreads',
  'dumpObject',
] as const satisfies readonly MethodName[];

export const HEAPSCOPE_EVENTS = [
  'load-progress',
  'session-preliminary',
  'session-ready',
  'summary-updated',
  'session-failed',
  'session-closed',
  'set-retained-progress',
  'capture-progress',
  'gc-monitor-rows',
  'gc-monitor-stopped',
  'open-requested',
  'menu-command',
  'busy',
] as const satisfies readonly EventName[];

export const MENU_COMMANDS = [
  'open-file',
  'open-sample',
  'close-tab',
  'export-csv',
  'find',
  'next-tab',
  'previous-tab',
  'show-types',
  'show-dominators',
  'show-generations',
  'show-diff',
  'capture-process',
  'monitor-gcs',
  'save-snapshot',
  'go-to-address',
  'about',
] as const satisfies readonly MenuCommand[];

// Compile-time exhaustiveness: a method/event in the interface but not in the list (or the other
// way round, which `satisfies` already rejects) makes one of these `never` and fails tsc.
type MissingMethods = Exclude<MethodName, (typeof HEAPSCOPE_METHODS)[number]>;
type MissingEvents = Exclude<EventName, (typeof HEAPSCOPE_EVENTS)[number]>;
type MissingMenuCommands = Exclude<MenuCommand, (typeof MENU_COMMANDS)[number]>;
const methodsExhaustive: [MissingMethods] extends [never] ? true : MissingMethods = true;
const eventsExhaustive: [MissingEvents] extends [never] ? true : MissingEvents = true;
const menuExhaustive: [MissingMenuCommands] extends [never] ? true : MissingMenuCommands = true;
void methodsExhaustive;
void eventsExhaustive;
void menuExhaustive;

/** Electron IPC channel of a method (derived, never typed by hand). */
export function channelOf(method: MethodName): `heapscope:${MethodName}` {
  return `heapscope:${method}`;
}

/** The one channel main pushes events on: payload `{ event, payload }`. */
export const EVENT_CHANNEL = 'heapscope:event';

const METHOD_SET: ReadonlySet<string> = new Set(HEAPSCOPE_METHODS);
const EVENT_SET: ReadonlySet<string> = new Set(HEAPSCOPE_EVENTS);

export function isMethodName(x: unknown): x is MethodName {
  return typeof x === 'string' && METHOD_SET.has(x);
}

export function isEventName(x: unknown): x is EventName {
  return typeof x === 'string' && EVENT_SET.has(x);
}
