import type { Request, Response, Router } from 'express';
import type { IntegrationService } from '../services.ts';

// How a service's simulator registers itself (each *.sandbox.ts file), apart from the sandbox's
// server (server.ts), which loads the simulators only when it starts: the simulators import this
// file, never the server.

export interface SandboxEnv {
  /** the service's public base (what a browser is sent to), e.g. http://127.0.0.1:41234/idprovider */
  publicBase(req: Request): string;
}

type SandboxSetup = (router: Router, env: SandboxEnv) => void;

const setups = new Map<IntegrationService, SandboxSetup[]>();

/** What the simulators of a service registered (server.ts mounts them). */
export const setupsOf = (service: IntegrationService): readonly SandboxSetup[] => setups.get(service) ?? [];

/** Registers (part of) a service's simulator; several files may add routes to one service. */
export function defineSandbox(service: IntegrationService, setup: SandboxSetup): void {
  const list = setups.get(service) ?? [];
  list.push(setup);
  setups.set(service, list);
}

/** A JSON error as the simulated services answer them. */
export function sandboxError(res: Response, status: number, message: string, extra: Record<string, unknown> = {}): void {
  res.status(status).json({ error: message, status, ...extra });
}
