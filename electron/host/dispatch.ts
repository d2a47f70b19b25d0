import type { HeapscopeService } from '../../shared/ipc/contract.js';
import { isMethodName } from '../../shared/ipc/methods.js';
import { err, toResult, type Result } from '../../shared/ipc/result.js';
import { checkRequest } from './request-guards.js';

/**
 * One request from any transport: method name check, argument guard, call, Result. Transports
 * (ipc-main.ts, the WebSocket server) add only their own sender check in front of this.
 */
export async function dispatch(service: HeapscopeService, method: unknown, arg: unknown): Promise<Result<unknown>> {
  if (!isMethodName(method)) return err({ code: 'usage/bad-argument', message: `unknown method ${JSON.stringify(String(method)).slice(0, 80)}` });
  const problem = checkRequest(method, arg);
  if (problem) return err({ code: 'usage/bad-argument', message: problem });
  const fn = service[method] as (req: unknown) => Promise<unknown>;
  return toResult(() => fn(arg));
}

