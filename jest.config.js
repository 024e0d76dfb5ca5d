// Two projects: `unit` (specs beside the code, no servers) and `e2e` (test/e2e, real Redis and store).
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  },
];
const moduleNameMapper = {
  '^@app/([a-z]+)$': '<rootDir>/libs/$1/src',
  '^@app/([a-z]+)/(.*)$': '<rootDir>/libs/$1/src/$2',
};
// content-disposition 3 (under @fastify/static, which Swagger UI needs) ships only ESM; jest's CommonJS
// sandbox cannot require() it, so it is transpiled like our own code.
const ESM_ONLY = ['content-disposition'];
const base = {
  rootDir: __dirname,
  transform: { '^.+\\.ts$': swc, [`/node_modules/(${ESM_ONLY.join('|')})/.+\\.js$`]: swc },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  moduleNameMapper,
  testEnvironment: 'node',
  setupFiles: ['<rootDir>/test/quiet-logs.ts'],
};
module.exports = {
  testTimeout: 60000,
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/apps/**/*.spec.ts', '<rootDir>/libs/**/*.spec.ts'] },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
      testTimeout: 60000,
    },
  ],
};
