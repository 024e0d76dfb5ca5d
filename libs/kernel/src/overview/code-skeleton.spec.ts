import { codeSkeleton } from './code-skeleton';

// docs/contract.md#tier-texts: assert only that signatures are present and bodies are absent.
describe('codeSkeleton', () => {
  it.each([
    {
      name: 'Python functions, methods and classes',
      file: 'calc.py',
      source:
        'import os\n\nclass Calculator(Base):\n    """Adds."""\n    def add(self, a, b):\n        return a + b\n\n    async def fetch(\n        self,\n        url: str,\n    ) -> Dict[str, int]:\n        data = await get(url)\n        return data\n\ndef main(): print("hi")\n',
      present: [
        'class Calculator(Base):',
        '    def add(self, a, b):',
        '    async def fetch(self, url: str,) -> Dict[str, int]:',
        'def main():',
      ],
      absent: ['return a + b', 'await get', 'print(', 'import os', 'Adds'],
    },
    {
      name: 'TypeScript classes, functions, arrows and methods',
      file: 'service.ts',
      source: [
        "import { x } from './x';",
        'export interface Options {',
        '  retries: number;',
        '}',
        'export class Service extends Base {',
        '  constructor(private readonly repo: Repo) {',
        '    super();',
        '  }',
        '  async load(id: string, opts: { deep: boolean }): Promise<Item> {',
        '    if (id) {',
        '      return this.repo.get(id);',
        '    }',
        '    items.forEach((item) => {',
        '      console.log(item);',
        '    });',
        '  }',
        '}',
        'export function helper(a: number): number {',
        '  return a * 2;',
        '}',
        'export const double = async (n: number) => {',
        '  return n * 2;',
        '};',
        'const triple = n => n * 3;',
        'const limit = (a + b) * 2;',
        "describe('x', () => {",
        "  it('works', () => {});",
        '});',
      ].join('\n'),
      present: [
        'export interface Options',
        'export class Service extends Base',
        '  constructor(private readonly repo: Repo)',
        '  async load(id: string, opts: { deep: boolean }): Promise<Item>',
        'export function helper(a: number): number',
        'export const double = async (n: number) =>',
        'const triple = n =>',
      ],
      absent: [
        'super()',
        'return this.repo',
        'console.log',
        'forEach',
        'return a * 2',
        'n * 3',
        'limit',
        'describe',
        'retries',
      ],
    },
    {
      name: 'Go functions, methods and types',
      file: 'server.go',
      source:
        'package main\n\ntype Server struct {\n\tport int\n}\n\nfunc (s *Server) Handle(w http.ResponseWriter, r *http.Request) {\n\tfmt.Println("x")\n}\n\nfunc Map[T any](xs []T) []T {\n\treturn xs\n}\n',
      present: [
        'type Server struct',
        'func (s *Server) Handle(w http.ResponseWriter, r *http.Request)',
        'func Map[T any](xs []T) []T',
      ],
      absent: ['port int', 'fmt.Println', 'return xs'],
    },
    {
      name: 'Rust functions, lifetimes, traits and impls',
      file: 'lib.rs',
      source:
        "pub struct Parser<'a> {\n    input: &'a str,\n}\n\nimpl<'a> Parser<'a> {\n    pub fn new(input: &'a str) -> Self {\n        Parser { input }\n    }\n}\n\npub trait Visit {\n    fn visit(&self, node: &Node);\n}\n\nfn generic<T>(x: T) -> T\nwhere\n    T: Clone,\n{\n    x.clone()\n}\n",
      present: [
        "pub struct Parser<'a>",
        "impl<'a> Parser<'a>",
        "    pub fn new(input: &'a str) -> Self",
        'pub trait Visit',
        '    fn visit(&self, node: &Node)',
        'fn generic<T>(x: T) -> T where T: Clone,',
      ],
      absent: ['Parser { input }', 'x.clone()', "input: &'a str,"],
    },
    {
      name: 'Java classes, methods and constructors',
      file: 'App.java',
      source:
        'public class App {\n    private final int x;\n\n    public App(int x) {\n        this.x = x;\n    }\n\n    public static void main(String[] args) {\n        System.out.println("hi");\n        for (int i = 0; i < 3; i++) {\n            run(i);\n        }\n        return;\n    }\n\n    private Map<String, List<Integer>> index(List<String> words) {\n        Runnable r = new Runnable() {\n        };\n        return new HashMap<>();\n    }\n}\n',
      present: [
        'public class App',
        '    public App(int x)',
        '    public static void main(String[] args)',
        '    private Map<String, List<Integer>> index(List<String> words)',
      ],
      absent: ['this.x = x', 'println', 'run(i)', 'new HashMap', 'new Runnable'],
    },
    {
      name: 'C prototypes, definitions and structs',
      file: 'util.h',
      source:
        '#include <stdio.h>\n\nstruct point {\n    int x;\n};\n\nint add(int a, int b);\n\nstatic char *copy_name(const char *src, size_t n)\n{\n    if (n == 0) {\n        return NULL;\n    }\n    memcpy(dst, src, n);\n    return dst;\n}\n',
      present: ['struct point', 'int add(int a, int b)', 'static char *copy_name(const char *src, size_t n)'],
      absent: ['memcpy', 'return NULL', 'int x;'],
    },
    {
      name: 'C++ classes, inline methods and qualified definitions',
      file: 'vec.cpp',
      source:
        'namespace geo {\nclass Vec {\n public:\n    explicit Vec(int n) : n_(n) {}\n    int size() const { return n_; }\n    virtual ~Vec();\n};\n}\n\nVec::Vec(const Vec& other) : n_(other.n_) {\n    std::copy(other.begin(), other.end(), data_);\n}\n',
      present: [
        'namespace geo',
        'class Vec',
        '    explicit Vec(int n) : n_(n)',
        '    int size() const',
        'Vec::Vec(const Vec& other) : n_(other.n_)',
      ],
      absent: ['return n_', 'std::copy'],
    },
  ])('$name', ({ file, source, present, absent }) => {
    const skeleton = codeSkeleton(file, source);
    const lines = skeleton.split('\n');
    for (const signature of present) expect(lines).toContain(signature);
    for (const body of absent) expect(skeleton).not.toContain(body);
  });

  it.each([
    { name: 'upper-case extension', file: 'MAIN.PY', code: true },
    { name: 'markdown is not code', file: 'notes.md', code: false },
    { name: 'no extension', file: 'Makefile', code: false },
  ])('language from the file name: $name', ({ file, code }) => {
    expect(codeSkeleton(file, 'def main():\n    return 1\n') !== '').toBe(code);
  });

  it('returns "" when nothing matches or the language is unknown', () => {
    expect(codeSkeleton('data.py', 'x = 1\ny = 2\n')).toBe('');
    expect(codeSkeleton('notes.md', '# Title\n')).toBe('');
  });

  it('a signature over several lines is joined without the whitespace inside its brackets, however long', () => {
    const source = `def f(${' '.repeat(250)}a,\n${' '.repeat(20_000)}b${' '.repeat(20_000)}\n):\n    return a\n`;
    expect(codeSkeleton('f.py', source).split('\n')).toContain('def f(a, b):');
  });
});
