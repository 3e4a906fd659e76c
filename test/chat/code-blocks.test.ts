import { describe, expect, it } from 'vitest';
import { codeBlocksOfKind, findCodeBlocks, HIDDEN_CONTENT, hideCodeBlockContents } from '../../src/modules/chat/code-blocks.ts';

// spec 002 "Chat": "Code blocks in message text: codeaction …, approvecodeaction …, coderesult …. In
// responses the content of codeaction and coderesult blocks is replaced by a hidden-content marker".
describe('findCodeBlocks: the one parser of codeaction, approvecodeaction and coderesult fences', () => {
  it('finds each kind with its content and where it is', () => {
    const text = 'Se her:\n```codeaction\nconst a = 1;\nreturn a;\n```\nOg så:\n```approvecodeaction\n```\n```coderesult\n{"ok":true}\n```';
    const blocks = findCodeBlocks(text);
    expect(blocks.map((b) => [b.kind, b.content])).toEqual([
      ['codeaction', 'const a = 1;\nreturn a;'],
      ['approvecodeaction', ''],
      ['coderesult', '{"ok":true}'],
    ]);
    expect(text.slice(blocks[0].start, blocks[0].end)).toBe('```codeaction\nconst a = 1;\nreturn a;\n```');
    expect(text.slice(blocks[2].start, blocks[2].end)).toBe('```coderesult\n{"ok":true}\n```');
    expect(text.slice(blocks[0].contentStart, blocks[0].contentEnd)).toBe(blocks[0].content);
  });

  it.each<[string, string, string[]]>([
    ['other fences are not code blocks', '```js\nlet x\n```', []],
    ['a codeaction example inside another fence is not one', '````markdown\n```codeaction\nx\n```\n````', []],
    ['the info string must be exactly the kind', '```codeactions\nx\n```\n``` codeaction\ny\n```', []],
    ['blanks after the info string are allowed', '```codeaction  \nx\n```', ['x']],
    ['a block runs to the end of the text when unclosed', 'a\n```coderesult\nline 1\nline 2', ['line 1\nline 2']],
    ['CRLF line ends', '```codeaction\r\nx = 1\r\n```\r\nafter', ['x = 1']],
    ['a longer closing fence closes; a shorter one does not', '````codeaction\nx\n```\ny\n`````', ['x\n```\ny']],
    ['not at the start of a line: text', 'see ```codeaction\nx\n```', []],
  ])('%s', (_rule, text, contents) => {
    expect(findCodeBlocks(text).map((b) => b.content)).toEqual(contents);
  });

  it('codeBlocksOfKind picks one kind (the assistant branch runs the last codeaction)', () => {
    const text = '```codeaction\none\n```\n```coderesult\nr\n```\n```codeaction\ntwo\n```';
    expect(codeBlocksOfKind(text, 'codeaction').map((b) => b.content)).toEqual(['one', 'two']);
    expect(findCodeBlocks(null)).toEqual([]);
  });
});

describe(`hideCodeBlockContents: codeaction and coderesult contents become ${HIDDEN_CONTENT}`, () => {
  it.each<[string, string, string]>([
    ['codeaction and coderesult hidden, the fences and the text around them kept', 'Før\n```codeaction\nsecret();\nmore();\n```\nEtter\n```coderesult\n{"x":1}\n```', `Før\n\`\`\`codeaction\n${HIDDEN_CONTENT}\n\`\`\`\nEtter\n\`\`\`coderesult\n${HIDDEN_CONTENT}\n\`\`\``],
    ['approvecodeaction is shown as it is', '```approvecodeaction\nok\n```', '```approvecodeaction\nok\n```'],
    ['an unclosed block is hidden to the end', 'a\n```codeaction\nx\ny', `a\n\`\`\`codeaction\n${HIDDEN_CONTENT}`],
    ['an empty block stays as it is', '```codeaction\n```', '```codeaction\n```'],
    ['text without blocks is unchanged', 'Hei! `kode` og ```js\nx\n```', 'Hei! `kode` og ```js\nx\n```'],
    ['CRLF text keeps its line ends', '```coderesult\r\nx\r\n```\r\n', `\`\`\`coderesult\r\n${HIDDEN_CONTENT}\r\n\`\`\`\r\n`],
  ])('%s', (_rule, text, shown) => {
    expect(hideCodeBlockContents(text)).toBe(shown);
  });

  it('null stays null', () => {
    expect(hideCodeBlockContents(null)).toBeNull();
  });
});
