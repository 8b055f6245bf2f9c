// One lint configuration for the whole monorepo; every workspace runs `eslint .` (turbo `lint`).
// Type-aware rules use the nearest tsconfig.json (typescript-eslint's project service).
// The layering it enforces is described in ARCHITECTURE.md, "Enforced layering".
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import msp from './eslint/msp-plugin.js';

const prismaModelMethods =
  'findUnique|findUniqueOrThrow|findFirst|findFirstOrThrow|findMany|create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany|count|aggregate|groupBy';

/** Prisma and SQL belong in `*.repository.ts` only. */
const persistenceOutsideRepositories = [
  {
    selector: "ImportDeclaration[importKind='value'][source.value=/generated\\/prisma/]",
    message: 'Prisma is used only in *.repository.ts (and wired in app.ts); import its types with `import type`.',
  },
  {
    selector: "ImportDeclaration[importKind='value'][source.value=/^@prisma\\//]",
    message: 'Prisma is used only in *.repository.ts (and wired in app.ts).',
  },
  {
    selector: 'MemberExpression[property.name=/^\\$(queryRaw|queryRawUnsafe|executeRaw|executeRawUnsafe|transaction)$/]',
    message: 'SQL and transactions belong in a *.repository.ts: give the repository a method for this.',
  },
  {
    selector: `CallExpression[callee.property.name=/^(${prismaModelMethods})$/][callee.object.object.name=/^(prisma|tx)$/]`,
    message: 'Prisma is called only from a *.repository.ts: give the repository a method for this.',
  },
  {
    selector: `CallExpression[callee.property.name=/^(${prismaModelMethods})$/][callee.object.object.property.name='prisma']`,
    message: 'Prisma is called only from a *.repository.ts: give the repository a method for this.',
  },
];

/**
 * One style of hand-written SQL: tagged templates (`sql` from @msp/db, docs/decisions.md "One style
 * of SQL"). Values are always bound parameters; no statement is a string with numbered placeholders.
 */
const sqlStyle = [
  {
    selector: 'MemberExpression[property.name=/^\\$(queryRawUnsafe|executeRawUnsafe)$/]',
    message: 'Hand-written SQL is a tagged template: `$queryRaw(sql`...`)` / `$executeRaw(sql`...`)` with `sql` from @msp/db.',
  },
  {
    selector: "CallExpression[callee.property.name='query'][arguments.0.type=/^(Literal|TemplateLiteral)$/]",
    message: 'A pg query is a tagged template too: `pool.query(pgStatement(sql`...`, name))` with both from @msp/db.',
  },
  {
    selector: "CallExpression[callee.property.name='query'] > ObjectExpression.arguments > Property[key.name='text']",
    message: 'A pg query is a tagged template too: `{ ...pgStatement(sql`...`, name), types }` with both from @msp/db.',
  },
  {
    selector: "MemberExpression[object.name='Prisma'][property.name=/^(sql|join|empty|raw)$/]",
    message: 'Take `sql`, `join`, `empty` and `raw` from @msp/db, the one place they come from.',
  },
];

const config = tseslint.config(
  {
    // eslint/fixtures: code the rules must flag, linted only by tests/infra's layering-rule test.
    ignores: ['**/node_modules/**', '**/generated/**', '**/dist/**', '**/.turbo/**', '**/.data/**', '**/*.d.ts', 'eslint/fixtures/**'],
  },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { msp },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Async discipline: a promise is awaited, returned, or explicitly `void`ed with a reason.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'separate-type-imports', disallowTypeAnnotations: false }],
      // `_name` marks a value left out on purpose (rest-destructuring to drop a field).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Ambient declarations for untyped vendor modules are referenced by path.
      '@typescript-eslint/triple-slash-reference': ['error', { path: 'always', types: 'prefer-import', lib: 'always' }],
      'msp/no-cross-workspace-import': 'error',
      'msp/no-silent-catch': 'error',
    },
  },
  {
    // Tests poke at untyped JSON answers.
    files: ['**/test/**/*.ts', '**/*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Plain JavaScript files (this config, the plugin) are not part of any tsconfig.
    files: ['**/*.js', '**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    // One style of SQL in production code. @msp/db itself runs migration files and owns the driver.
    files: ['services/*/src/**/*.ts', 'gateway/src/**/*.ts', 'packages/*/src/**/*.ts', 'eslint/fixtures/sql-style/**/*.ts'],
    ignores: ['packages/db/src/**', '**/*.test.ts'],
    rules: { 'no-restricted-syntax': ['error', ...sqlStyle] },
  },
  {
    // Persistence: Prisma and SQL only in repositories. app.ts builds the client, plugins/ own it.
    // (It restates sqlStyle: a later block's no-restricted-syntax replaces an earlier one's.)
    files: ['services/*/src/**/*.ts', 'gateway/src/**/*.ts'],
    ignores: ['**/*.repository.ts', '**/src/app.ts', '**/src/plugins/**', '**/*.test.ts'],
    rules: { 'no-restricted-syntax': ['error', ...persistenceOutsideRepositories, ...sqlStyle] },
  },
  {
    // Services and event consumers reach the database only through a repository. Type-aware: any
    // use of a value typed PrismaClient, a Prisma transaction client or model delegate, pg's
    // Pool/PoolClient/Client or the events package's SqlExecutor is an error; passing a
    // transaction handle on to a repository is not (eslint/msp-plugin.js).
    files: ['**/*.service.ts', '**/*.consumer.ts'],
    ignores: ['**/*.test.ts', '**/test/**'],
    rules: { 'msp/persistence-in-repositories': 'error' },
  },
  {
    // Services hold the rules and know nothing of HTTP: no Fastify types or plugins.
    files: ['**/*.service.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['fastify', 'fastify/*', '@fastify/*'], message: 'A *.service.ts receives plain, validated inputs; the route adapts Fastify to them.' },
          ],
        },
      ],
    },
  },
);

export default config;
