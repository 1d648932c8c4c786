// Tokenizes test/sample.races with the extension's TextMate grammar (vscode-textmate +
// vscode-oniguruma, the engine VS Code uses) and checks the scopes of keywords, names,
// types, strings, comments and decorators. Prints a JSON summary; exits 1 on failure.
'use strict';

const fs = require('fs');
const path = require('path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const root = path.join(__dirname, '..');
const grammarPath = path.join(root, 'syntaxes', 'races.tmLanguage.json');
const samplePath = process.argv[2] || path.join(__dirname, 'sample.races');

async function main() {
  const wasm = fs.readFileSync(path.join(path.dirname(require.resolve('vscode-oniguruma')), 'onig.wasm')).buffer;
  await oniguruma.loadWASM(wasm);
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) => {
      if (scopeName !== 'source.races') return null;
      return vsctm.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath);
    },
  });
  const grammar = await registry.loadGrammar('source.races');
  const lines = fs.readFileSync(samplePath, 'utf8').split(/\r\n|\r|\n/);
  const tokens = [];
  let ruleStack = vsctm.INITIAL;
  lines.forEach((line, i) => {
    const r = grammar.tokenizeLine(line, ruleStack);
    for (const t of r.tokens) {
      tokens.push({ line: i, text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes });
    }
    ruleStack = r.ruleStack;
  });

  const failures = [];
  let checked = 0;
  function expect(lineIdx, text, scope, nth = 0) {
    checked += 1;
    const hits = tokens.filter((t) => t.line === lineIdx && t.text.trim() === text);
    const tok = hits[nth];
    if (!tok) {
      failures.push(`line ${lineIdx + 1}: no token "${text}"`);
    } else if (!tok.scopes.some((s) => s === scope || s.startsWith(scope + '.'))) {
      failures.push(`line ${lineIdx + 1}: "${text}" has ${tok.scopes.join(' ')}, expected ${scope}`);
    }
  }
  const L = (needle) => lines.findIndex((l) => l.includes(needle));

  expect(0, 'A sample for the grammar test.', 'comment.line.number-sign.races');
  expect(0, '#', 'punctuation.definition.comment.races');
  expect(L('module sample'), 'module', 'keyword.control.import.races');
  expect(L('module sample'), 'sample', 'entity.name.namespace.races');
  expect(L('import numbers'), 'import', 'keyword.control.import.races');
  expect(L('from strings'), 'from', 'keyword.control.import.races');
  expect(L('type Digit'), 'type', 'storage.type.type.races');
  expect(L('type Digit'), 'Digit', 'entity.name.type.races');
  expect(L('type Digit'), 'Int', 'support.type.races');
  expect(L('type Digit'), 'where', 'keyword.other.where.races');
  expect(L('type Digit'), 'it', 'variable.language.it.races');
  expect(L('type Digit'), '0', 'constant.numeric.decimal.races');
  expect(L('newtype Pair'), 'newtype', 'storage.type.type.races');
  expect(L('def pick'), 'def', 'storage.type.function.races');
  expect(L('def pick'), 'pick', 'entity.name.function.races');
  expect(L('def pick'), 'rng', 'variable.parameter.races', 0);
  expect(L('def pick'), 'level', 'variable.parameter.races', 0);
  expect(L('env add_digits'), 'k', 'variable.parameter.races');
  expect(L('return rng'), 'return', 'keyword.control.flow.races');
  expect(L('@sample'), '@', 'punctuation.definition.decorator.races');
  expect(L('@sample'), 'sample', 'entity.name.function.decorator.races');
  expect(L('@tags'), 'tags', 'entity.name.function.decorator.races');
  expect(L('@tags'), 'demo', 'string.quoted.double.races');
  expect(L('env add_digits'), 'env', 'storage.type.function.races');
  expect(L('env add_digits'), 'add_digits', 'entity.name.function.races');
  expect(L('env add_digits'), 'n', 'variable.parameter.races');
  expect(L('env add_digits'), 'Digit', 'entity.name.type.races');
  expect(L('env add_digits'), 'List', 'support.type.races');
  expect(L('"""Add'), 'Add', 'string.quoted.docstring.multi.races');
  expect(L('"""Add'), '{k}', 'variable.other.placeholder.races');
  expect(L('out = [int'), 'for', 'keyword.control.flow.races');
  expect(L('out = [int'), 'in', 'keyword.operator.logical.races');
  expect(L('out = [int'), 'int', 'support.function.builtin.races');
  expect(L('if len(out)'), 'and', 'keyword.operator.logical.races');
  expect(L('if len(out)'), 'True', 'constant.language.races');
  expect(L('s = f"'), 'n', 'meta.interpolation.races');
  expect(L('s = f"'), 'é🙂', 'string.quoted.double.races');
  expect(L('return sorted'), 'done', 'comment.line.number-sign.races');
  expect(L('return sorted'), 'False', 'constant.language.races');

  const summary = { tokens: tokens.length, checked, failures };
  console.log(JSON.stringify(summary));
  if (failures.length) process.exit(1);
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(2);
});
