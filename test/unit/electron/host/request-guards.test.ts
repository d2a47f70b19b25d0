import { describe, expect, it } from 'vitest';
import { HEAPSCOPE_METHODS } from '../../../../shared/ipc/methods.js';
import { checkRequest, REQUEST_GUARDS } from '../../../../electron/host/request-guards.js';

const S = { sessionId: 's-abc123' };
const sort = (key: string) => ({ key, dir: 'desc' });

describe('request guards', () => {
  it('has a guard for every contract method (the table is exhaustive at runtime too)', () => {
    expect(Object.keys(REQUEST_GUARDS).sort()).toEqual([...HEAPSCOPE_METHODS].sort());
  });

  it('accepts the documented shapes', () => {
    const ok: [string, unknown][] = [
      ['appInfo', {}],
      ['registerPath', { path: '/x/a.gcdump', via: 'typed' }],
      ['registerPath', { path: '/x/a.gcdump', via: 'restore' }],
      ['open', { fileToken: 'a1b2c3' }],
      ['open', { fileToken: 'a1b2c3', select: 'MyDomain' }],
      ['typeRows', { ...S, sort: sort('retainedSize'), filter: 'String', start: 0, end: 100 }],
      ['objectRows', { ...S, typeIndex: 3, sort: sort('address'), generation: 255, start: 100, end: 200 }],
      ['references', { ...S, node: 7, direction: 'incoming', start: 0, end: 10 }],
      ['objectAtAddress', { ...S, address: '0x7f3a10' }],
      ['dominatorChildren', { ...S, node: null, start: 0, end: 100 }],
      ['pathsToRoots', { ...S, target: { kind: 'type', typeIndex: 2 } }],
      ['pathsToRoots', { ...S, target: { kind: 'object', node: 9 }, maxPaths: 5 }],
      ['generations', { ...S, topTypes: 10 }],
      ['diff', { ...S, baselineSessionId: 's-0', sort: sort('retainedDelta'), changedOnly: true, start: 0, end: 50 }],
      ['exportCsv', { ...S, view: 'types', sort: sort('count') }],
      ['exportCsv', { ...S, view: 'dominators', node: null }],
      ['exportCsv', { ...S, view: 'diff', baselineSessionId: 's-0', sort: sort('type') }],
      ['exportCsv', { ...S, view: 'gc-timeline' }],
      ['setRetained', { ...S, typeIndices: [3, 0, 17] }],
      ['setRetained', { ...S, typeIndices: [] }],
      ['cancelSetRetained', { ...S }],
      ['exportCsv', { ...S, view: 'paths', target: { kind: 'type', typeIndex: 3 } }],
      ['exportCsv', { ...S, view: 'paths', target: { kind: 'object', node: 9 }, maxPaths: 20 }],
      ['exportCsv', { view: 'gc-monitor', monitorId: 'm-abc' }],
      ['saveSnapshot', S],
      ['exportReport', S],
      ['exportReport', { ...S, baselineSessionId: 's-0', thresholdPercent: 2.5 }],
      ['listProcesses', {}],
      ['captureProcess', { pid: 4242 }],
      ['captureProcess', { pid: 4242, timeoutSec: 600 }],
      ['captureDump', { pid: 4242 }],
      ['captureDump', { pid: 4242, kind: 'full', timeoutSec: 600 }],
      ['startGcMonitor', { pid: 1 }],
      ['stopGcMonitor', { monitorId: 'm-abc' }],
      ['gcMonitorStatus', { monitorId: 'm-abc' }],
      ['gcMonitorRows', { monitorId: 'm-abc', start: 0, end: 10_000 }],
      ['trend', { sessionIds: ['s-1', 's-2'] }],
      ['trend', { sessionIds: Array.from({ length: 32 }, (_, i) => `s-${i}`) }],
      ['trendDominators', { sessionIds: ['s-1', 's-2'] }],
      ['trendDominators', { sessionIds: ['s-1', 's-2', 's-3'], minBytes: 1024, maxDepth: 64 }],
    ];
    for (const [m, arg] of ok) expect(checkRequest(m as never, arg), `${m} ${JSON.stringify(arg)}`).toBeNull();
  });

  it('rejects wrong types, unknown keys, oversized windows and strings, and prototype tricks', () => {
    const bad: [string, unknown][] = [
      ['appInfo', { extra: 1 }],
      ['appInfo', []],
      ['open', { fileToken: '../../etc/passwd' }],
      ['registerPath', { path: '', via: 'drop' }],
      ['registerPath', { path: 'x'.repeat(5000), via: 'drop' }],
      ['registerPath', { path: '/a', via: 'url' }],
      ['typeRows', { ...S, sort: sort('count'), start: 0, end: 10_001 }],
      ['typeRows', { ...S, sort: sort('count'), start: 5, end: 4 }],
      ['typeRows', { ...S, sort: sort('count'), start: 0.5, end: 4 }],
      ['typeRows', { ...S, sort: sort('bogus'), start: 0, end: 4 }],
      ['typeRows', { ...S, sort: sort('count'), start: 0, end: 4, filter: 'x'.repeat(201) }],
      ['typeRows', { ...S, sort: sort('count'), start: 0, end: 4, admin: true }],
      ['objectRows', { ...S, typeIndex: -1, sort: sort('size'), start: 0, end: 4 }],
      ['objectRows', { ...S, typeIndex: 1, sort: sort('size'), generation: 7, start: 0, end: 4 }],
      ['summary', { sessionId: 'has spaces' }],
      ['objectAtAddress', { ...S, address: 0x7f3a10 }],
      ['objectAtAddress', { ...S, address: '0x' + '0'.repeat(100) }],
      ['objectAtAddress', S],
      ['summary', Object.create({ sessionId: 's-1' })],
      ['pathsToRoots', { ...S, target: { kind: 'object', node: 1 }, maxPaths: 500 }],
      ['pathsToRoots', { ...S, target: { kind: 'file', path: '/x' } }],
      ['exportCsv', { ...S, view: 'everything' }],
      ['exportCsv', { ...S, view: 'types', sort: sort('count'), path: '/tmp/out.csv' }],
      ['exportCsv', { ...S, view: 'gc-timeline', path: '/tmp/out.csv' }],
      ['exportCsv', { ...S, view: 'paths', target: { kind: 'object', node: 9 }, maxPaths: 51 }],
      ['exportCsv', { ...S, view: 'paths' }],
      ['exportCsv', { view: 'gc-monitor', monitorId: '../x' }],
      ['exportCsv', { ...S, view: 'gc-monitor', monitorId: 'm-1' }],
      ['saveSnapshot', { ...S, path: '/tmp/x.gcdump' }],
      ['setRetained', { ...S, typeIndices: [-1] }],
      ['setRetained', { ...S, typeIndices: [1.5] }],
      ['setRetained', { ...S, typeIndices: '3' }],
      ['setRetained', { ...S, typeIndices: new Array(1001).fill(1) }],
      ['setRetained', { ...S, typeIndices: [1], top: 5 }],
      ['cancelSetRetained', { ...S, typeIndices: [1] }],
      ['listProcesses', { all: true }],
      ['captureProcess', { pid: 0 }],
      ['captureProcess', { pid: -5 }],
      ['captureProcess', { pid: 1.5 }],
      ['captureProcess', { pid: '123' }],
      ['captureProcess', { pid: 12, timeoutSec: 0 }],
      ['captureProcess', { pid: 12, timeoutSec: 601 }],
      ['captureProcess', { pid: 12, outPath: '/tmp/x' }],
      ['captureDump', { pid: 12, kind: 'triage' }],
      ['captureDump', { pid: 12, path: '/etc/x.dmp' }],
      ['captureDump', { pid: 0 }],
      ['captureDump', { pid: 12, timeoutSec: 601 }],
      ['startGcMonitor', {}],
      ['startGcMonitor', { pid: 2 ** 33 }],
      ['stopGcMonitor', { monitorId: 'has space' }],
      ['gcMonitorRows', { monitorId: 'm-1', start: 0, end: 10_001 }],
      ['gcMonitorRows', { monitorId: 'm-1', start: 5, end: 4 }],
      ['trend', { sessionIds: ['s-1'] }],
      ['trend', { sessionIds: Array.from({ length: 33 }, (_, i) => `s-${i}`) }],
      ['trend', { sessionIds: ['s-1', '../x'] }],
      ['trend', { sessionIds: 's-1,s-2' }],
      ['trend', { sessionIds: ['s-1', 's-2'], sort: 'x' }],
      ['trendDominators', { sessionIds: ['s-1'] }],
      ['trendDominators', { sessionIds: ['s-1', 's-2'], minBytes: -1 }],
      ['trendDominators', { sessionIds: ['s-1', 's-2'], minBytes: 1023 }],
      ['trendDominators', { sessionIds: ['s-1', 's-2'], minBytes: 1.5 }],
      ['trendDominators', { sessionIds: ['s-1', 's-2'], maxDepth: 0 }],
      ['trendDominators', { sessionIds: ['s-1', 's-2'], maxDepth: 65 }],
      ['trendDominators', { sessionIds: ['s-1', 's-2'], sort: 'growth' }],
    ];
    for (const [m, arg] of bad) expect(checkRequest(m as never, arg), `${m} ${JSON.stringify(arg)}`).not.toBeNull();
  });

  it('checks setIgnored (what if, issue 16)', () => {
    const ok: unknown[] = [
      { ...S, rules: [] },
      { ...S, rules: [{ kind: 'reference', from: 1, to: 2 }, { kind: 'type', typeIndex: 0 }, { kind: 'root', node: 4 }] },
    ];
    for (const arg of ok) expect(checkRequest('setIgnored', arg), JSON.stringify(arg)).toBeNull();
    const bad: unknown[] = [
      S,
      { ...S, rules: {} },
      { ...S, rules: [{ kind: 'reference', from: 1 }] },
      { ...S, rules: [{ kind: 'reference', from: 1, to: -2 }] },
      { ...S, rules: [{ kind: 'type', typeIndex: 1, extra: 1 }] },
      { ...S, rules: [{ kind: 'root', node: '4' }] },
      { ...S, rules: [{ kind: 'edge', node: 4 }] },
      { ...S, rules: Array.from({ length: 101 }, () => ({ kind: 'root', node: 4 })) },
    ];
    for (const arg of bad) expect(checkRequest('setIgnored', arg), JSON.stringify(arg)).not.toBeNull();
  });

  it('checks the issue-14 methods (grouped dominator tree, retained by, compute again)', () => {
    const ok: [string, unknown][] = [
      ['dominatorTypeGroups', { ...S, start: 0, end: 100 }],
      ['dominatorTypeInstances', { ...S, typeIndex: 4, start: 200, end: 400 }],
      ['retainedBy', { ...S, typeIndex: 0 }],
      ['computeAgain', S],
      ['retainedByObjects', { ...S, typeIndex: 4, dominatorTypeIndex: 9, start: 0, end: 200 }],
      ['inspections', S],
      ['inspections', { ...S, top: 25 }],
    ];
    for (const [m, arg] of ok) expect(checkRequest(m as never, arg), `${m} ${JSON.stringify(arg)}`).toBeNull();
    const bad: [string, unknown][] = [
      ['dominatorTypeGroups', { ...S, start: 0, end: 10_001 }],
      ['dominatorTypeGroups', { ...S, start: 0, end: 10, node: 1 }],
      ['dominatorTypeInstances', { ...S, typeIndex: -1, start: 0, end: 10 }],
      ['dominatorTypeInstances', { ...S, start: 0, end: 10 }],
      ['retainedBy', { ...S, typeIndex: 1.5 }],
      ['retainedBy', { ...S }],
      ['computeAgain', { ...S, force: true }],
      ['retainedByObjects', { ...S, typeIndex: 4, start: 0, end: 200 }],
      ['retainedByObjects', { ...S, typeIndex: 4, dominatorTypeIndex: -2, start: 0, end: 200 }],
      ['inspections', { ...S, top: 0 }],
      ['inspections', { ...S, top: 1001 }],
      ['inspections', { ...S, kinds: [] }],
      ['exportReport', { ...S, thresholdPercent: 0 }],
      ['exportReport', { ...S, thresholdPercent: '10' }],
      ['exportReport', { ...S, baselineSessionId: S.sessionId }],
      ['exportReport', { ...S, format: 'md' }],
    ];
    for (const [m, arg] of bad) expect(checkRequest(m as never, arg), `${m} ${JSON.stringify(arg)}`).not.toBeNull();
  });

  it('checks the sunburst query (issue 16): mode, node or null, bounded type path and options', () => {
    const ok: unknown[] = [
      { ...S, node: null, mode: 'object' },
      { ...S, node: 12, mode: 'type', typePath: [3, 4], depth: 8, top: 200, minShare: 0.001 },
      { ...S, node: null, mode: 'type', depth: 1, top: 1, minShare: 0.5 },
      { ...S, node: null, mode: 'object', supersedeKey: 'sunburst-1' },
    ];
    for (const arg of ok) expect(checkRequest('dominatorSunburst', arg), JSON.stringify(arg)).toBeNull();
    const bad: unknown[] = [
      { ...S, mode: 'object' },
      { ...S, node: null, mode: 'tree' },
      { ...S, node: -1, mode: 'object' },
      { ...S, node: null, mode: 'type', typePath: [1, -1] },
      { ...S, node: null, mode: 'type', typePath: Array.from({ length: 257 }, () => 1) },
      { ...S, node: null, mode: 'object', depth: 0 },
      { ...S, node: null, mode: 'object', depth: 9 },
      { ...S, node: null, mode: 'object', top: 201 },
      { ...S, node: null, mode: 'object', minShare: 0 },
      { ...S, node: null, mode: 'object', minShare: 0.6 },
      { ...S, node: null, mode: 'object', extra: 1 },
      { ...S, node: null, mode: 'object', supersedeKey: 7 },
      { ...S, node: null, mode: 'object', supersedeKey: 'k'.repeat(65) },
    ];
    for (const arg of bad) expect(checkRequest('dominatorSunburst', arg), JSON.stringify(arg)).not.toBeNull();
  });
});
