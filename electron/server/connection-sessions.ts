import type { HeapscopeService, MonitorId, SessionId } from '../../shared/ipc/contract.js';
import type { Result } from '../../shared/ipc/result.js';

/**
 * What one browser page (one WebSocket) holds in the back end: the sessions it opened or captured
 * and the GC monitors it started. When the page goes away (reload, tab closed) its socket closes
 * and everything it held is freed here; the browser bridge never reconnects, so nothing could use
 * them again. Without this every F5 would keep the old page's heaps in the workers while the
 * restored tabs load them a second time (saved-session.ts reopens each tab on reload).
 *
 * Only ids learned from this connection's own successful calls are freed, so another page's
 * sessions are never touched. Cost: a Set entry per open tab of the page.
 */
export class ConnectionSessions {
  private readonly sessions = new Set<SessionId>();
  private readonly monitors = new Set<MonitorId>();
  private released = false;

  constructor(private readonly service: HeapscopeService) {}

  /**
   * Note what a finished call gave this connection, or took back from it. A call that finishes
   * after the page went away (an open still starting when it reloaded) is freed at once.
   */
  record(method: unknown, arg: unknown, result: Result<unknown>): void {
    if (!result.ok) return;
    const value = result.value as { sessionId?: SessionId; monitorId?: MonitorId } | null;
    const req = arg as { sessionId?: SessionId; monitorId?: MonitorId } | null;
    if (this.released) {
      if ((method === 'open' || method === 'captureProcess') && value?.sessionId) void this.service.close({ sessionId: value.sessionId }).catch(() => undefined);
      if (method === 'startGcMonitor' && value?.monitorId) void this.service.stopGcMonitor({ monitorId: value.monitorId }).catch(() => undefined);
      return;
    }
    if ((method === 'open' || method === 'captureProcess') && value?.sessionId) this.sessions.add(value.sessionId);
    else if (method === 'close' && req?.sessionId) this.sessions.delete(req.sessionId);
    else if (method === 'startGcMonitor' && value?.monitorId) this.monitors.add(value.monitorId);
    else if (method === 'stopGcMonitor' && req?.monitorId) this.monitors.delete(req.monitorId);
  }

  /** The page is gone: close its sessions and stop its monitors (errors ignored: already gone). */
  async release(): Promise<void> {
    const service = this.service;
    this.released = true;
    const sessions = [...this.sessions];
    const monitors = [...this.monitors];
    this.sessions.clear();
    this.monitors.clear();
    await Promise.all([
      ...sessions.map((sessionId) => service.close({ sessionId }).catch(() => undefined)),
      ...monitors.map((monitorId) => service.stopGcMonitor({ monitorId }).catch(() => undefined)),
    ]);
  }
}
