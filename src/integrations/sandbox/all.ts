/**
 * Every service's simulator, imported for its defineSandbox calls when the sandbox starts
 * (./server.ts); nothing imports them otherwise, so a server with real upstreams never loads them.
 */
import '../govportal/filings.sandbox.ts';
import '../idprovider/login.sandbox.ts';
import '../govportal/portal.sandbox.ts';
import '../taxauthority/property.sandbox.ts';
import '../dialogplatform/dialogs.sandbox.ts';
import '../einvoice/registry.sandbox.ts';
import '../providerb/onboarding.sandbox.ts';
import '../govportal/yearly-accounts.sandbox.ts';
import '../taxauthority/tax-returns.sandbox.ts';
import '../taxauthority/garnishments.sandbox.ts';
