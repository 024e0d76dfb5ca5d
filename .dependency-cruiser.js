/**
 * Dependency rules for Muninn (run: `depcruise apps libs test --config .dependency-cruiser.js`).
 * The direction is: kernel → ∅, contracts → kernel, config → ∅, libs ↛ apps, apps ↛ apps
 * (apps/standalone may import the other apps' root modules), no cycles.
 * `process.env` inside the kernel is invisible to dependency-cruiser: .ci/check-kernel-env.sh covers it.
 */
const SPEC = '\\.(spec|e2e-spec)\\.ts$';
const TESTING = '^libs/(testing|kernel/src/testing)/';

// The "may import" column of architecture.md for the other libs. Reported as warnings: the hard
// rules are the ones the style guide names (kernel, contracts, config, apps).
const LIB_MAY_IMPORT = {
  store: ['kernel', 'contracts', 'config'], // config: StoreModule opens the database from AppConfig
  queue: ['contracts', 'kernel', 'config'],
  embed: ['config', 'kernel'],
  llm: ['config'],
  client: ['contracts'],
};

module.exports = {
  forbidden: [
    {
      name: 'kernel-is-pure',
      severity: 'error',
      comment:
        'libs/kernel is pure TypeScript: no @nestjs/*, bullmq, ioredis, pg, @electric-sql/*, class-validator, ' +
        'class-transformer, no other lib or app, and no node built-ins. Put side effects behind a port ' +
        'interface the kernel defines and implement it outside (style rule 3).',
      from: { path: '^libs/kernel/', pathNot: SPEC },
      to: { pathNot: '^libs/kernel/' },
    },
    {
      name: 'kernel-specs-are-pure',
      severity: 'error',
      comment:
        'Kernel specs call plain functions: only the kernel itself and node built-ins (e.g. fixtures via node:fs).',
      from: { path: `^libs/kernel/.*${SPEC}` },
      to: { pathNot: '^libs/kernel/', dependencyTypesNot: ['core'] },
    },
    {
      name: 'contracts-only-kernel',
      severity: 'error',
      comment:
        'libs/contracts is the wire: plain JSON types that may use kernel types, nothing else (no packages either).',
      from: { path: '^libs/contracts/', pathNot: SPEC },
      to: { pathNot: '^libs/(contracts|kernel)/' },
    },
    {
      name: 'config-imports-no-internal',
      severity: 'error',
      comment: 'libs/config parses the environment for everyone and so depends on no other lib or app.',
      from: { path: '^libs/config/', pathNot: SPEC },
      to: { path: '^(libs|apps)/', pathNot: '^libs/config/' },
    },
    {
      name: 'libs-not-to-apps',
      severity: 'error',
      comment:
        'Libraries never import applications; move shared code down into a lib. Exception: libs/testing ' +
        '(test-only, excluded from the build) may boot apps, as architecture.md allows it "anything".',
      from: { path: '^libs/', pathNot: '^libs/testing/' },
      to: { path: '^apps/' },
    },
    {
      name: 'apps-not-to-apps',
      severity: 'error',
      comment: 'Apps talk only through the queues in libs/contracts; shared code goes down into libs (style rule 2).',
      from: { path: '^apps/([^/]+)/', pathNot: '^apps/standalone/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'standalone-only-root-modules',
      severity: 'error',
      comment:
        'apps/standalone composes the other apps in one process through their root modules ' +
        "(apps/<app>/src/<app>.module.ts) and the gateway's HTTP set-up (so both serve the same HTTP " +
        'surface), nothing deeper.',
      from: { path: '^apps/standalone/' },
      to: {
        path: '^apps/',
        pathNot: [
          '^apps/standalone/',
          '^apps/([^/]+)/src/\\1\\.module\\.ts$',
          '^apps/gateway/src/http/configure-app\\.ts$',
        ],
      },
    },
    {
      name: 'production-not-to-testing',
      severity: 'error',
      comment:
        'libs/testing and libs/kernel/src/testing (fixtures for kernel specs, which may import only the kernel) ' +
        'are test-only (the build excludes them); app and lib code must not import them.',
      from: { path: '^(apps|libs)/', pathNot: [SPEC, TESTING] },
      to: { path: TESTING },
    },
    {
      name: 'production-not-to-dev-deps',
      severity: 'error',
      comment:
        'Code that ships imports only "dependencies": the Docker image prunes devDependencies. ' +
        'Move the package to dependencies, or keep the import in a spec / libs/testing. ' +
        'libs/client/scripts/ is build tooling (the OpenAPI client generator runs openapi-typescript) and never ships.',
      from: { path: '^(apps|libs)/', pathNot: [SPEC, '^libs/testing/', '^libs/client/scripts/'] },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'], pathNot: ['node_modules/@types/'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Circular dependency: invert it through a port or move the shared piece down a layer.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'The import resolves to nothing on disk (a typo, a missing package, or an @app/* alias tsconfig lacks).',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-non-package-json',
      severity: 'error',
      comment:
        'The package is not in package.json (it only happens to be installed as a transitive dependency): add it.',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'not-to-spec',
      severity: 'error',
      comment: 'Nothing imports a spec file; move shared test code to libs/testing.',
      from: {},
      to: { path: SPEC },
    },
    ...Object.entries(LIB_MAY_IMPORT).map(([lib, allowed]) => ({
      name: `${lib}-imports-per-architecture`,
      severity: 'warn',
      comment: `architecture.md: libs/${lib} may import only ${allowed.map((l) => `libs/${l}`).join(', ')} among internal modules.`,
      from: { path: `^libs/${lib}/`, pathNot: SPEC },
      to: { path: '^(libs|apps)/', pathNot: `^libs/(${[lib, ...allowed].join('|')})/` },
    })),
  ],
  options: {
    doNotFollow: { path: ['node_modules'] },
    tsPreCompilationDeps: true, // type-only imports count: kernel may not even import types from elsewhere
    tsConfig: { fileName: 'tsconfig.json' }, // resolves the @app/* paths
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.d.ts', '.js', '.json'],
      mainFields: ['main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
