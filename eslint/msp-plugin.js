// The repository's own lint rules: the layering of ARCHITECTURE.md ("Enforced layering") that no
// off-the-shelf rule expresses without a module resolver.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Workspace directory (relative to the root, `/`-separated) of every `@msp/*` package. */
const workspaceByName = new Map();
for (const parent of ['packages', 'services', 'tests']) {
  for (const dir of readdirSync(join(root, parent))) {
    const manifest = join(root, parent, dir, 'package.json');
    if (existsSync(manifest)) workspaceByName.set(JSON.parse(readFileSync(manifest, 'utf8')).name, `${parent}/${dir}`);
  }
}
workspaceByName.set(JSON.parse(readFileSync(join(root, 'gateway/package.json'), 'utf8')).name, 'gateway');

/** `services/catalog`, `gateway`, `packages/http`, `tests/e2e` or undefined for a path outside them. */
function workspaceOf(absolutePath) {
  const parts = relative(root, absolutePath).split(sep);
  if (parts[0] === 'gateway') return 'gateway';
  if (['services', 'packages', 'tests'].includes(parts[0]) && parts[1]) return `${parts[0]}/${parts[1]}`;
  return undefined;
}

const isApp = (ws) => ws === 'gateway' || ws?.startsWith('services/');

/** @type {import('eslint').Rule.RuleModule} */
const noCrossWorkspaceImport = {
  meta: {
    type: 'problem',
    docs: { description: 'A service never imports another service (or the gateway); packages never import services.' },
    schema: [],
    messages: {
      service: '{{from}} imports {{to}}: services share only packages/* and talk over HTTP contracts or NATS events (ARCHITECTURE.md, "Enforced layering").',
      package: '{{from}} imports {{to}}: packages never depend on a service or the gateway.',
    },
  },
  create(context) {
    const from = workspaceOf(context.filename);
    if (!from || from.startsWith('tests/')) return {};
    function check(node, source) {
      if (typeof source !== 'string') return;
      let to;
      if (source.startsWith('.')) to = workspaceOf(resolve(dirname(context.filename), source));
      else {
        const name = source
          .split('/')
          .slice(0, source.startsWith('@') ? 2 : 1)
          .join('/');
        to = workspaceByName.get(name);
      }
      if (!to || to === from || !isApp(to)) return;
      if (isApp(from)) context.report({ node, messageId: 'service', data: { from, to } });
      else if (from.startsWith('packages/')) context.report({ node, messageId: 'package', data: { from, to } });
    }
    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
    };
  },
};

const silentBodies = new Set(['undefined', 'void 0', '{}', 'null']);

/** @type {import('eslint').Rule.RuleModule} */
const noSilentCatch = {
  meta: {
    type: 'problem',
    docs: { description: 'A `.catch` that drops the error says why in a comment (or logs / counts it).' },
    schema: [],
    messages: {
      silent: 'This .catch drops the error silently: log it, count it, or say in a comment why it may be dropped.',
    },
  },
  create(context) {
    const sourceCode = context.sourceCode;
    return {
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier' || callee.property.name !== 'catch') return;
        const handler = node.arguments[0];
        if (!handler || (handler.type !== 'ArrowFunctionExpression' && handler.type !== 'FunctionExpression')) return;
        const body = sourceCode.getText(handler.body).replace(/\s+/g, ' ').trim();
        if (!silentBodies.has(body)) return;
        // A comment inside the handler, on the same line, or on the line(s) just above the statement.
        if (sourceCode.getCommentsInside(node).length > 0) return;
        const line = node.loc.start.line;
        const endLine = node.loc.end.line;
        const statement = ancestorStatement(node);
        const firstLine = statement ? statement.loc.start.line : line;
        const comments = sourceCode.getAllComments();
        if (comments.some((c) => c.loc.end.line >= firstLine - 1 && c.loc.start.line <= endLine)) return;
        context.report({ node: handler, messageId: 'silent' });
      },
    };
  },
};

/** Methods only a Prisma client, a Prisma transaction client or the events package's SqlExecutor has. */
const sqlMethods = ['$executeRaw', '$executeRawUnsafe', '$queryRaw', '$queryRawUnsafe', '$transaction'];
const pgHandles = new Set(['Pool', 'PoolClient', 'Client', 'ClientBase']);
const prismaSource = /[\\/](generated[\\/]prisma|@prisma[\\/]client)[\\/]/;
const pgSource = /[\\/]node_modules[\\/](@types[\\/])?pg[\\/]/;
const persistenceImport = /(^|\/)generated\/prisma(\/|$)|^@prisma\/|^pg(-[a-z-]+)?(\/|$)/;

function declarationFile(symbol) {
  return symbol?.getDeclarations()?.[0]?.getSourceFile().fileName ?? '';
}

/**
 * What kind of database handle `type` is (a short label), or undefined for anything else. A union
 * or intersection is one when any member is; a type parameter (`Tx extends SqlExecutor`) when its
 * constraint is.
 */
function persistenceKind(checker, type, depth = 0) {
  if (!type || depth > 4) return undefined;
  if (type.isUnion() || type.isIntersection()) {
    for (const member of type.types) {
      const kind = persistenceKind(checker, member, depth + 1);
      if (kind) return kind;
    }
    return undefined;
  }
  if (type.isTypeParameter()) return persistenceKind(checker, checker.getBaseConstraintOfType(type), depth + 1);
  for (const symbol of [type.aliasSymbol, type.getSymbol()]) {
    if (!symbol) continue;
    const file = declarationFile(symbol);
    if (pgSource.test(file) && pgHandles.has(symbol.getName())) return `pg.${symbol.getName()}`;
    if (prismaSource.test(file) && symbol.getName().endsWith('Delegate')) return `Prisma model delegate ${symbol.getName()}`;
  }
  if (sqlMethods.some((name) => checker.getPropertyOfType(type, name))) {
    // Named as declared (PrismaClient, SqlExecutor, TransactionalClient); Prisma's transaction
    // client is an `Omit<PrismaClient, ...>` and anonymous types have no useful name.
    const symbol = type.aliasSymbol ?? type.getSymbol();
    const named = symbol && !symbol.getName().startsWith('__') && !/[\\/]typescript[\\/]lib[\\/]/.test(declarationFile(symbol));
    if (named) return symbol.getName();
    return checker.getPropertyOfType(type, '$transaction') ? 'transactional client' : 'transaction client';
  }
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
const persistenceInRepositories = {
  meta: {
    type: 'problem',
    docs: { description: 'A service or event consumer reaches the database only through a repository: no Prisma, pg or SqlExecutor use in it.' },
    schema: [],
    messages: {
      use: '`{{text}}` is a database handle ({{kind}}): a service depends on its repository; persistence lives in *.repository.ts. Give the repository a method and call it here (a transaction handle may be passed to it as an argument, never used directly; ARCHITECTURE.md, "Enforced layering").',
      import:
        '\'{{source}}\' is Prisma or pg: a service depends on its repository; persistence lives in *.repository.ts. Use the types the repository exports (ARCHITECTURE.md, "Enforced layering").',
    },
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    if (!services?.program || !services.esTreeNodeToTSNodeMap) {
      throw new Error(`msp/persistence-in-repositories needs type information (typescript-eslint's projectService) for ${context.filename}`);
    }
    const checker = services.program.getTypeChecker();
    const kindOf = (node) => persistenceKind(checker, checker.getTypeAtLocation(services.esTreeNodeToTSNodeMap.get(node)));
    const isMemberOfHandle = (node) => node.type === 'MemberExpression' && kindOf(node.object) !== undefined;
    const short = (text) => (text.length > 60 ? `${text.slice(0, 57)}...` : text);
    const report = (node, handle, kind) => context.report({ node, messageId: 'use', data: { text: short(context.sourceCode.getText(handle)), kind } });
    const checkImport = (node) => {
      if (node.source && typeof node.source.value === 'string' && persistenceImport.test(node.source.value)) {
        context.report({ node: node.source, messageId: 'import', data: { source: node.source.value } });
      }
    };
    return {
      ImportDeclaration: checkImport,
      ExportNamedDeclaration: checkImport,
      ExportAllDeclaration: checkImport,
      TSImportEqualsDeclaration(node) {
        if (node.moduleReference.type === 'TSExternalModuleReference') checkImport({ source: node.moduleReference.expression });
      },
      // `tx.$executeRawUnsafe(...)`, `this.db.track.count()`, `pool.query(...)`: using a handle. One
      // report per chain: `this.db.track.count` is reported at `this.db.track`, not again at `.count`.
      MemberExpression(node) {
        if (isMemberOfHandle(node.object)) return;
        const kind = kindOf(node.object);
        if (kind) report(node, node.object, kind);
      },
      // `const { track } = this.db`: the same use, destructured.
      VariableDeclarator(node) {
        if (node.id.type !== 'ObjectPattern' || !node.init) return;
        const kind = kindOf(node.init);
        if (kind) report(node.id, node.init, kind);
      },
    };
  },
};

function ancestorStatement(node) {
  let current = node.parent;
  while (current && !/Statement$|Declaration$/.test(current.type)) current = current.parent;
  return current;
}

export default {
  meta: { name: 'msp' },
  rules: {
    'no-cross-workspace-import': noCrossWorkspaceImport,
    'no-silent-catch': noSilentCatch,
    'persistence-in-repositories': persistenceInRepositories,
  },
};
