/** Small HTML pages of the simulated services (login, confirmation): escaped text, no scripts. */
export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function sandboxPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="nb"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem}label{display:block;margin:.4rem 0}.error{color:#a00}.sandbox{background:#ffd;padding:.3rem .6rem;font-size:.85rem}</style>
</head><body><p class="sandbox">Sandbox: a simulator, not the real service</p><h1>${escapeHtml(title)}</h1>
${body}
</body></html>`;
}
