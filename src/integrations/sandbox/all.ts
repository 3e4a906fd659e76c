/**
 * Every service's simulator, imported for its defineSandbox calls when the sandbox starts
 * (./server.ts); nothing imports them otherwise, so a server with real upstreams never loads them.
 */
import '../govportal/filings.sandbox.ts';
import '../taxauthority/tax-returns.sandbox.ts';
