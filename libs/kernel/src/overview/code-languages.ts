/** How a declaration's signature ends: at a body brace/arrow, or at Python's `:`. */
export type SignatureEnd = 'brace' | 'colon';

/** One line pattern that starts a declaration; `name` is the capture group holding its identifier. */
export interface DeclarationRule {
  pattern: RegExp;
  name?: number;
  /** Also accept a body-less declaration ending in `;` (trait/prototype style). */
  bodyless?: boolean;
  /** End at a top-level `=>` (arrow functions bound to a name). */
  arrow?: boolean;
}

export interface LanguageRules {
  end: SignatureEnd;
  lineComment: string | null;
  /** Characters that open a one-line string literal (Rust leaves `'` out: lifetimes). */
  quotes: string;
  rules: readonly DeclarationRule[];
}

// Every rule runs on one line of at most MAX_DECLARATION_LINE (300) characters (code-skeleton.ts, matchingRule),
// which bounds the backtracking a few rules allow (the lint's regexp rules; measured: at most 0.2 ms a line).
const JS_MODS = '(?:(?:public|private|protected|static|readonly|abstract|override|async|get|set|declare)\\s+)*';
const JAVA_MODS =
  '(?:(?:public|protected|private|static|final|abstract|synchronized|native|default|strictfp|sealed|non-sealed)\\s+)*';
const NO_STATEMENT = '(?!(?:return|new|throw|else|case|delete|goto)\\b)';
const RUST_VIS = '(?:pub(?:\\([^)]*\\))?\\s+)?';

const PYTHON: LanguageRules = {
  end: 'colon',
  lineComment: '#',
  quotes: `"'`,
  rules: [{ pattern: /^\s*(?:async\s+)?def\s+\w+\s*\(/ }, { pattern: /^\s*class\s+\w+/ }],
};

const SCRIPT: LanguageRules = {
  end: 'brace',
  lineComment: '//',
  quotes: '"\'`',
  rules: [
    { pattern: /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\b/ },
    { pattern: /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?class\b/ },
    { pattern: /^\s*(?:export\s+)?(?:declare\s+)?(?:interface|enum|namespace)\s+[\w$]+/ },
    {
      pattern: /^\s*(?:export\s+)?(?:const|let|var)\s+[\w$]+\s*(?::[^=]+)?=\s*(?:async\s+)?(?:\(|[\w$]+\s*=>)/,
      arrow: true,
    },
    // eslint-disable-next-line regexp/no-super-linear-backtracking -- one line of at most MAX_DECLARATION_LINE characters
    { pattern: new RegExp(`^\\s*${JS_MODS}\\*?([\\w$#]+)\\s*(?:<[^>]*>)?\\s*\\(`), name: 1 },
  ],
};

const GO: LanguageRules = {
  end: 'brace',
  lineComment: '//',
  quotes: '"\'`',
  rules: [{ pattern: /^func\b/ }, { pattern: /^type\s+\w+(?:\[[^\]]*\])?\s+(?:struct|interface)\b/ }],
};

const RUST: LanguageRules = {
  end: 'brace',
  lineComment: '//',
  quotes: `"`,
  rules: [
    {
      pattern: new RegExp(`^\\s*${RUST_VIS}(?:(?:const|async|unsafe|extern(?:\\s+"[^"]*")?)\\s+)*fn\\s+\\w+`),
      bodyless: true,
    },
    { pattern: new RegExp(`^\\s*${RUST_VIS}(?:struct|enum|trait|union|mod)\\s+\\w+`) },
    { pattern: /^\s*(?:unsafe\s+)?impl\b/ },
  ],
};

const JAVA: LanguageRules = {
  end: 'brace',
  lineComment: '//',
  quotes: `"'`,
  rules: [
    { pattern: new RegExp(`^\\s*${JAVA_MODS}(?:class|interface|enum|record|@interface)\\s+\\w+`) },
    {
      pattern: new RegExp(
        // eslint-disable-next-line regexp/no-super-linear-backtracking -- one line of at most MAX_DECLARATION_LINE characters
        `^\\s*${NO_STATEMENT}${JAVA_MODS}(?:<[^>]+>\\s+)?[\\w$][\\w$.<>\\[\\],? ]*\\s+([\\w$]+)\\s*\\(`,
      ),
      name: 1,
    },
    { pattern: new RegExp(`^\\s*(?:(?:public|protected|private)\\s+)([\\w$]+)\\s*\\(`), name: 1 },
  ],
};

const C_FAMILY: LanguageRules = {
  end: 'brace',
  lineComment: '//',
  quotes: `"'`,
  rules: [
    {
      pattern:
        // eslint-disable-next-line regexp/no-super-linear-backtracking -- one line of at most MAX_DECLARATION_LINE characters
        /^\s*(?:template\s*<[^>]*>\s*)?(?:typedef\s+)?(?:struct|class|union|enum(?:\s+class)?|namespace)\s+\w+[^;]*$/,
    },
    {
      // eslint-disable-next-line regexp/no-super-linear-backtracking -- one line of at most MAX_DECLARATION_LINE characters
      pattern: /^(?!(?:return|else|goto)\b)[A-Za-z_][\w\s*&:<>,~]*?[\s*&]\**([A-Za-z_~][\w:~]*)\s*\(/,
      name: 1,
      bodyless: true,
    },
    { pattern: /^([A-Za-z_]\w*::~?[A-Za-z_]\w*)\s*\(/ },
    {
      pattern:
        /^\s+(?!(?:return|new|delete|throw|else|case|goto)\b)(?:(?:virtual|static|inline|explicit|constexpr)\s+)*(?:[\w:<>,*&~]+\s+)*[*&]*([A-Za-z_~][\w~]*)\s*\(/,
      name: 1,
    },
  ],
};

const BY_EXTENSION: Readonly<Record<string, LanguageRules>> = {
  py: PYTHON,
  pyi: PYTHON,
  js: SCRIPT,
  jsx: SCRIPT,
  mjs: SCRIPT,
  cjs: SCRIPT,
  ts: SCRIPT,
  tsx: SCRIPT,
  mts: SCRIPT,
  cts: SCRIPT,
  go: GO,
  rs: RUST,
  java: JAVA,
  c: C_FAMILY,
  h: C_FAMILY,
  cc: C_FAMILY,
  cpp: C_FAMILY,
  cxx: C_FAMILY,
  hpp: C_FAMILY,
  hh: C_FAMILY,
  hxx: C_FAMILY,
};

/** Statement keywords that look like `name(` but never start a declaration. */
export const NOT_A_NAME = new Set([
  'if',
  'for',
  'while',
  'switch',
  'catch',
  'return',
  'function',
  'new',
  'else',
  'do',
  'try',
  'throw',
  'typeof',
  'await',
  'yield',
  'delete',
  'void',
  'sizeof',
  'super',
  'this',
  'with',
  'case',
  'elif',
  'except',
  'lambda',
  'assert',
  'synchronized',
  'defer',
  'go',
  'match',
  'foreach',
  'using',
  'static_assert',
  'decltype',
  'alignof',
]);

/** Declaration rules for a file name, or null when no skeleton is supported (docs/contract.md#tier-texts item 2). */
export function languageFor(fileName: string): LanguageRules | null {
  const dot = fileName.lastIndexOf('.');
  if (dot <= 0) return null;
  const extension = fileName.slice(dot + 1).toLowerCase();
  // Own keys only: `x.constructor` must not find Object.prototype.constructor.
  return Object.hasOwn(BY_EXTENSION, extension) ? BY_EXTENSION[extension]! : null;
}
