/**
 * The one parser of the code blocks a chat message's text may hold (spec 002 "Chat": "Code blocks in
 * message text"): markdown fences whose info string is
 *
 *   ```codeaction          code to run (in preview mode first; the assistant branch runs it)
 *   ```approvecodeaction   approves the thread's last codeaction (its content is not used)
 *   ```coderesult          generated output of a run
 *
 * The grammar, kept simple so that a user's text and the SQL of the thread search agree with it:
 * a block opens on a line that starts with three or more backticks followed by the info string
 * (spaces or tabs may follow it, nothing else); it closes on the next line of only backticks, at
 * least as many as opened it (trailing spaces or tabs allowed), or at the end of the text. Other
 * fences (```js, ``` ) are skipped as a whole, so a code block that shows an example of a codeaction
 * is not one. Line ends are \n or \r\n.
 *
 * Responses never show the contents of codeaction and coderesult blocks: `hideCodeBlockContents`
 * replaces each one's contents by the line `HIDDEN_CONTENT` (the fences stay, so a client sees that
 * a block is there). approvecodeaction blocks are shown as they are.
 */
export const CODE_BLOCK_KINDS = ['codeaction', 'approvecodeaction', 'coderesult'] as const;
export type CodeBlockKind = (typeof CODE_BLOCK_KINDS)[number];

/** What a hidden block shows instead of its contents. */
export const HIDDEN_CONTENT = '[hidden]';

/** The kinds whose contents responses hide. */
export const HIDDEN_KINDS: readonly CodeBlockKind[] = ['codeaction', 'coderesult'];

export interface CodeBlock {
  kind: CodeBlockKind;
  /** the text between the opening and the closing fence lines (without the line break before the closing fence) */
  content: string;
  /** offset of the opening fence's first backtick */
  start: number;
  /** offset just after the block: after the closing fence line's backticks and trailing blanks, or the end of the text */
  end: number;
  /** where `content` starts and ends in the text */
  contentStart: number;
  contentEnd: number;
}

const OPENING = /^(`{3,})[ \t]*([^\s`]*)[^`\n]*$/;
const KIND_LINE = /^(`{3,})(codeaction|approvecodeaction|coderesult)[ \t]*$/;

interface Line {
  text: string;
  start: number;
  /** offset of the line's end (before its \r\n or \n) */
  end: number;
}

function lines(text: string): Line[] {
  const out: Line[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    const stop = nl === -1 ? text.length : nl;
    const end = stop > start && text[stop - 1] === '\r' ? stop - 1 : stop;
    out.push({ text: text.slice(start, end), start, end });
    if (nl === -1) return out;
    start = nl + 1;
  }
}

/** Every codeaction, approvecodeaction and coderesult block of the text, in order. */
export function findCodeBlocks(text: string | null | undefined): CodeBlock[] {
  if (!text || !text.includes('```')) return [];
  const all = lines(text);
  const out: CodeBlock[] = [];
  for (let i = 0; i < all.length; i++) {
    const open = OPENING.exec(all[i].text);
    if (!open) continue;
    const fence = open[1].length;
    const kind = KIND_LINE.exec(all[i].text)?.[2] as CodeBlockKind | undefined;
    let close = i + 1;
    while (close < all.length && !isClosing(all[close].text, fence)) close++;
    if (kind) {
      const contentStart = i + 1 < all.length ? all[i + 1].start : text.length;
      const closed = close < all.length;
      // the content ends before the line break that precedes the closing fence (or at the end of the text)
      const contentEnd = closed ? Math.max(contentStart, all[close - 1].end) : text.length;
      out.push({
        kind,
        content: text.slice(contentStart, contentEnd),
        start: all[i].start,
        end: closed ? all[close].end : text.length,
        contentStart,
        contentEnd,
      });
    }
    i = close; // skip the block (and its closing line)
  }
  return out;
}

const isClosing = (line: string, fence: number): boolean => {
  const m = /^(`{3,})[ \t]*$/.exec(line);
  return !!m && m[1].length >= fence;
};

/**
 * The text as responses show it: the contents of every codeaction and coderesult block replaced by
 * the line HIDDEN_CONTENT (an empty block stays as it is). Text without such blocks comes back unchanged.
 */
export function hideCodeBlockContents(text: string): string;
export function hideCodeBlockContents(text: string | null): string | null;
export function hideCodeBlockContents(text: string | null): string | null {
  if (text == null) return null;
  // a block without contents has nothing to hide
  const hidden = findCodeBlocks(text).filter((b) => HIDDEN_KINDS.includes(b.kind) && b.content.trim() !== '');
  if (!hidden.length) return text;
  let out = '';
  let at = 0;
  for (const b of hidden) {
    out += text.slice(at, b.contentStart) + HIDDEN_CONTENT;
    at = b.contentEnd;
  }
  return out + text.slice(at);
}

/** The blocks of one kind, e.g. the codeaction blocks the assistant branch runs. */
export const codeBlocksOfKind = (text: string | null | undefined, kind: CodeBlockKind): CodeBlock[] => findCodeBlocks(text).filter((b) => b.kind === kind);
