import type { ApiRequest, MethodName } from '../../shared/ipc/contract.js';
import { DIFF_SORT_KEYS, OBJECT_SORT_KEYS, STRING_SORT_KEYS, TYPE_SORT_KEYS } from '../../shared/ipc/sort-keys.js';
import { MAX_WINDOW } from '../../shared/session/row-order.js';
import { MAX_SET_RETAINED_TYPES } from '../../shared/session/set-retained-view.js';
import { MAX_TREND_SESSIONS } from '../../shared/session/trend-view.js';
import { MAX_IGNORE_RULES } from '../../shared/ipc/dtos-what-if.js';

/**
 * Hand-written shape checks for every request, run by main (Electron IPC) and by the WebSocket
 * server before anything else sees the argument. A renderer is untrusted input: a wrong type, an
 * unknown key, a 10 MB string or a window of a billion rows is refused here with
 * `usage/bad-argument`, never passed on. No schema library: the contract is small and the guards
 * read like it (ARCHITECTURE §9.8).
 *
 * The table is typed by MethodName, so adding a method to the contract without a guard fails tsc.
 */
type Guard<M extends MethodName> = (x: unknown) => x is ApiRequest<M>;
export type RequestGuards = { [M in MethodName]: Guard<M> };

type Obj = Record<string, unknown>;
const MAX_STRING = 4096;

function isObj(x: unknown): x is Obj {
  return typeof x === 'object' && x !== null && !Array.isArray(x) && Object.getPrototypeOf(x) === Object.prototype;
}
/** An object with the required keys and no keys outside required + optional. */
function shape(x: unknown, required: readonly string[], optional: readonly string[] = []): x is Obj {
  if (!isObj(x)) return false;
  for (const k of required) if (!(k in x)) return false;
  for (const k of Object.keys(x)) if (!required.includes(k) && !optional.includes(k)) return false;
  return true;
}
const str = (x: unknown, max = MAX_STRING): x is string => typeof x === 'string' && x.length <= max;
const id = (x: unknown): x is string => typeof x === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(x);
const nat = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 0xffffffff;
const optStr = (x: unknown, max = 200) => x === undefined || str(x, max);
const optBool = (x: unknown) => x === undefined || typeof x === 'boolean';
const nodeOrNull = (x: unknown) => x === null || nat(x);

function sort<K extends string>(x: unknown, keys: readonly K[]): boolean {
  return shape(x, ['key', 'dir']) && keys.includes(x.key as K) && (x.dir === 'asc' || x.dir === 'desc');
}
function windowOk(x: Obj): boolean {
  return nat(x.start) && nat(x.end) && x.end >= x.start && x.end - x.start <= MAX_WINDOW;
}

const empty = (x: unknown): boolean => shape(x, []);
const ignoreRule = (x: unknown): boolean =>
  isObj(x) &&
  ((x.kind === 'reference' && shape(x, ['kind', 'from', 'to']) && nat(x.from) && nat(x.to)) ||
    (x.kind === 'type' && shape(x, ['kind', 'typeIndex']) && nat(x.typeIndex)) ||
    (x.kind === 'root' && shape(x, ['kind', 'node']) && nat(x.node)));
const session = (x: unknown): boolean => shape(x, ['sessionId']) && id(x.sessionId);
const gen = (x: unknown) => x === undefined || (nat(x) && (x <= 4 || x === 255));

function exportReq(x: unknown): boolean {
  if (isObj(x) && x.view === 'gc-monitor') return shape(x, ['view', 'monitorId']) && id(x.monitorId);
  if (!isObj(x) || !id(x.sessionId)) return false;
  switch (x.view) {
    case 'types':
      return shape(x, ['sessionId', 'view', 'sort'], ['filter']) && sort(x.sort, TYPE_SORT_KEYS) && optStr(x.filter);
    case 'objects':
      return (
        shape(x, ['sessionId', 'view', 'typeIndex', 'sort'], ['filter', 'generation', 'valueId']) &&
        nat(x.typeIndex) &&
        sort(x.sort, OBJECT_SORT_KEYS) &&
        optStr(x.filter) &&
        gen(x.generation) &&
        (x.valueId === undefined || nat(x.valueId))
      );
    case 'dominators':
      return shape(x, ['sessionId', 'view', 'node']) && nodeOrNull(x.node);
    case 'diff':
      return shape(x, ['sessionId', 'view', 'baselineSessionId', 'sort'], ['filter', 'changedOnly']) && id(x.baselineSessionId) && sort(x.sort, DIFF_SORT_KEYS) && optStr(x.filter) && optBool(x.changedOnly);
    case 'generations':
    case 'gc-timeline':
      return shape(x, ['sessionId', 'view']);
    case 'paths':
      return shape(x, ['sessionId', 'view', 'target'], ['maxPaths']) && pathsFields(x);
    case 'strings':
      return shape(x, ['sessionId', 'view', 'sort'], ['filter', 'minCount']) && sort(x.sort, STRING_SORT_KEYS) && optStr(x.filter) && minCountOk(x.minCount);
    default:
      return false;
  }
}

/** A live process id (Windows pids are DWORDs; 0 is never a user process). */
const pid = (x: unknown): x is number => nat(x) && x > 0;
const monitor = (x: unknown): boolean => shape(x, ['monitorId']) && id(x.monitorId);

function pathsReq(x: unknown): boolean {
  return shape(x, ['sessionId', 'target'], ['maxPaths']) && id(x.sessionId) && pathsFields(x);
}

function pathsFields(x: Obj): boolean {
  if (x.maxPaths !== undefined && !(nat(x.maxPaths) && x.maxPaths >= 1 && x.maxPaths <= 50)) return false;
  const t = x.target;
  return (shape(t, ['kind', 'node']) && t.kind === 'object' && nat(t.node)) || (shape(t, ['kind', 'typeIndex']) && t.kind === 'type' && nat(t.typeIndex));
}

const minCountOk = (x: unknown) => x === undefined || (nat(x) && x >= 1);

const g = <M extends MethodName>(f: (x: unknown) => boolean) => f as Guard<M>;

export const REQUEST_GUARDS: RequestGuards = {
  appInfo: g(empty),
  listFiles: g(empty),
  takePendingOpens: g(empty),
  pickFile: g(empty),
  registerPath: g((x) => shape(x, ['path', 'via']) && str(x.path) && x.path.length > 0 && (x.via === 'drop' || x.via === 'typed' || x.via === 'restore')),
  removeRecent: g((x) => shape(x, ['fileToken']) && id(x.fileToken)),
  clearRecent: g(empty),
  open: g((x) => shape(x, ['fileToken'], ['select']) && id(x.fileToken) && optStr(x.select)),
  listSessions: g(empty),
  summary: g(session),
  cancel: g(session),
  close: g(session),
  typeRows: g((x) => shape(x, ['sessionId', 'sort', 'start', 'end'], ['filter', 'locate']) && id(x.sessionId) && sort(x.sort, TYPE_SORT_KEYS) && optStr(x.filter) && (x.locate === undefined || nat(x.locate)) && windowOk(x)),
  objectRows: g(
    (x) =>
      shape(x, ['sessionId', 'typeIndex', 'sort', 'start', 'end'], ['filter', 'generation', 'valueId']) &&
      id(x.sessionId) &&
      nat(x.typeIndex) &&
      sort(x.sort, OBJECT_SORT_KEYS) &&
      optStr(x.filter) &&
      gen(x.generation) &&
      (x.valueId === undefined || nat(x.valueId)) &&
      windowOk(x),
  ),
  objectInfo: g((x) => shape(x, ['sessionId', 'node']) && id(x.sessionId) && nat(x.node)),
  references: g(
    (x) => shape(x, ['sessionId', 'node', 'direction', 'start', 'end']) && id(x.sessionId) && nat(x.node) && (x.direction === 'outgoing' || x.direction === 'incoming') && windowOk(x),
  ),
  objectAtAddress: g((x) => shape(x, ['sessionId', 'address']) && id(x.sessionId) && str(x.address, 64)),
  dominatorChildren: g((x) => shape(x, ['sessionId', 'node', 'start', 'end']) && id(x.sessionId) && nodeOrNull(x.node) && windowOk(x)),
  dominatorPath: g((x) => shape(x, ['sessionId', 'node']) && id(x.sessionId) && nat(x.node)),
  pathsToRoots: g(pathsReq),
  generations: g((x) => shape(x, ['sessionId'], ['topTypes']) && id(x.sessionId) && (x.topTypes === undefined || (nat(x.topTypes) && x.topTypes <= 1000))),
  diff: g(
    (x) =>
      shape(x, ['sessionId', 'baselineSessionId', 'sort', 'start', 'end'], ['filter', 'changedOnly']) &&
      id(x.sessionId) &&
      id(x.baselineSessionId) &&
      sort(x.sort, DIFF_SORT_KEYS) &&
      optStr(x.filter) &&
      optBool(x.changedOnly) &&
      windowOk(x),
  ),
  gcTimeline: g(session),
  trend: g(
    (x) =>
      shape(x, ['sessionIds']) &&
      Array.isArray(x.sessionIds) &&
      x.sessionIds.length >= 2 &&
      x.sessionIds.length <= MAX_TREND_SESSIONS &&
      (x.sessionIds as unknown[]).every(id),
  ),
  trendDominators: g(
    (x) =>
      shape(x, ['sessionIds'], ['minBytes', 'maxDepth']) &&
      Array.isArray(x.sessionIds) &&
      x.sessionIds.length >= 2 &&
      x.sessionIds.length <= MAX_TREND_SESSIONS &&
      (x.sessionIds as unknown[]).every(id) &&
      (x.minBytes === undefined || (nat(x.minBytes) && x.minBytes >= 1024)) &&
      (x.maxDepth === undefined || (nat(x.maxDepth) && x.maxDepth >= 1 && x.maxDepth <= 64)),
  ),
  setRetained: g(
    (x) =>
      shape(x, ['sessionId', 'typeIndices']) &&
      id(x.sessionId) &&
      Array.isArray(x.typeIndices) &&
      x.typeIndices.length <= MAX_SET_RETAINED_TYPES &&
      (x.typeIndices as unknown[]).every(nat),
  ),
  cancelSetRetained: g(session),
  exportCsv: g(exportReq),
  saveSnapshot: g(session),
  exportReport: g((x) => shape(x, ['sessionId'], ['baselineSessionId', 'thresholdPercent']) && id(x.sessionId) && (x.baselineSessionId === undefined || (id(x.baselineSessionId) && x.baselineSessionId !== x.sessionId)) && (x.thresholdPercent === undefined || (typeof x.thresholdPercent === 'number' && x.thresholdPercent > 0 && x.thresholdPercent <= 100))),
  listProcesses: g(empty),
  captureProcess: g((x) => shape(x, ['pid'], ['timeoutSec']) && pid(x.pid) && (x.timeoutSec === undefined || (nat(x.timeoutSec) && x.timeoutSec >= 1 && x.timeoutSec <= 600))),
  captureDump: g(
    (x) =>
      shape(x, ['pid'], ['kind', 'timeoutSec']) &&
      pid(x.pid) &&
      (x.kind === undefined || x.kind === 'heap' || x.kind === 'full') &&
      (x.timeoutSec === undefined || (nat(x.timeoutSec) && x.timeoutSec >= 1 && x.timeoutSec <= 600)),
  ),
  startGcMonitor: g((x) => shape(x, ['pid']) && pid(x.pid)),
  stopGcMonitor: g(monitor),
  gcMonitorRows: g((x) => shape(x, ['monitorId', 'start', 'end']) && id(x.monitorId) && windowOk(x)),
  gcMonitorStatus: g(monitor),
  dominatorTypeGroups: g((x) => shape(x, ['sessionId', 'start', 'end']) && id(x.sessionId) && windowOk(x)),
  dominatorTypeInstances: g((x) => shape(x, ['sessionId', 'typeIndex', 'start', 'end']) && id(x.sessionId) && nat(x.typeIndex) && windowOk(x)),
  retainedBy: g((x) => shape(x, ['sessionId', 'typeIndex']) && id(x.sessionId) && nat(x.typeIndex)),
  computeAgain: g(session),
  setIgnored: g((x) => shape(x, ['sessionId', 'rules']) && id(x.sessionId) && Array.isArray(x.rules) && x.rules.length <= MAX_IGNORE_RULES && (x.rules as unknown[]).every(ignoreRule)),
  inspections: g((x) => shape(x, ['sessionId'], ['top']) && id(x.sessionId) && (x.top === undefined || (nat(x.top) && x.top >= 1 && x.top <= 1000))),
  dominatorSunburst: g(sunburstReq),
  dumpRuntime: g(session),
  dumpThreads: g(session),
  dumpObject: g(
    (x) =>
      shape(x, ['sessionId', 'address'], ['elements']) &&
      id(x.sessionId) &&
      str(x.address, 20) &&
      /^(0x)?[0-9a-fA-F]{1,16}$/.test(x.address) &&
      (x.elements === undefined || (nat(x.elements) && x.elements <= 1000)),
  ),
  retainedByObjects: g((x) => shape(x, ['sessionId', 'typeIndex', 'dominatorTypeIndex', 'start', 'end']) && id(x.sessionId) && nat(x.typeIndex) && nat(x.dominatorTypeIndex) && windowOk(x)),
  stringRows: g(
    (x) => shape(x, ['sessionId', 'sort', 'start', 'end'], ['filter', 'minCount']) && id(x.sessionId) && sort(x.sort, STRING_SORT_KEYS) && optStr(x.filter) && minCountOk(x.minCount) && windowOk(x),
  ),
  stringInstances: g((x) => shape(x, ['sessionId', 'valueId', 'start', 'end']) && id(x.sessionId) && nat(x.valueId) && windowOk(x)),
};

/** The sunburst's shape and bounds (the session checks the node and the types against the snapshot). */
function sunburstReq(x: unknown): boolean {
  if (!shape(x, ['sessionId', 'node', 'mode'], ['typePath', 'depth', 'top', 'minShare', 'supersedeKey']) || !id(x.sessionId) || !nodeOrNull(x.node) || !optStr(x.supersedeKey, 64)) return false;
  if (x.mode !== 'object' && x.mode !== 'type') return false;
  if (x.typePath !== undefined && !(Array.isArray(x.typePath) && x.typePath.length <= 256 && (x.typePath as unknown[]).every(nat))) return false;
  if (x.depth !== undefined && !(nat(x.depth) && x.depth >= 1 && x.depth <= 8)) return false;
  if (x.top !== undefined && !(nat(x.top) && x.top >= 1 && x.top <= 200)) return false;
  return x.minShare === undefined || (typeof x.minShare === 'number' && x.minShare >= 0.001 && x.minShare <= 0.5);
}

/** Check a request for `method`; returns an error message or null. */
export function checkRequest(method: MethodName, arg: unknown): string | null {
  return REQUEST_GUARDS[method](arg) ? null : `bad request for ${method}: ${describe(arg)}`;
}

function describe(x: unknown): string {
  try {
    const s = JSON.stringify(x);
    return s === undefined ? String(x) : s.length > 200 ? s.slice(0, 200) + '…' : s;
  } catch {
    return typeof x;
  }
}
