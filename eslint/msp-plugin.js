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

function ancestorStatement(node) {
  let current = node.parent;
  while (current && !/Statement$|Declaration$/.test(current.type)) current = current.parent;
  return current;
}

export default {
  meta: { name: 'msp' },
  rules: { 'no-cross-workspace-import': noCrossWorkspaceImport, 'no-silent-catch': noSilentCatch },
};
