// Loads src/extension.js with a stand-in `vscode` module (no VS Code needed) and checks
// that activation starts a LanguageClient running `racesc lsp` over stdio for `races`
// documents, with the configured path, arguments and initialization options, and that the
// code lens command racesl.showComposers opens VS Code's references peek.
'use strict';

const Module = require('module');
const path = require('path');

const config = { serverPath: '/opt/venv/bin/racesc', serverArgs: ['--log-file', '/tmp/l.log'], include: ['mods'], debounceMs: 50 };
const started = [];
const commands = {};
const executed = [];
const fakeVscode = {
  workspace: {
    getConfiguration: (section) => ({ get: (k) => (section === 'racesl' ? config[k] : undefined) }),
    createFileSystemWatcher: (glob) => ({ glob }),
    onDidChangeConfiguration: () => ({ dispose() {} }),
  },
  commands: {
    registerCommand: (name, fn) => { commands[name] = fn; return { dispose() {} }; },
    executeCommand: async (...args) => { executed.push(args); },
  },
  Uri: { parse: (s) => ({ uri: s }) },
  Position: class { constructor(line, character) { Object.assign(this, { line, character }); } },
  Range: class { constructor(l0, c0, l1, c1) { Object.assign(this, { start: { line: l0, character: c0 }, end: { line: l1, character: c1 } }); } },
  Location: class { constructor(uri, range) { Object.assign(this, { uri, range }); } },
  window: { showErrorMessage: (m) => { throw new Error('unexpected error message: ' + m); } },
};
class FakeClient {
  constructor(id, name, serverOptions, clientOptions) {
    Object.assign(this, { id, name, serverOptions, clientOptions, running: false });
  }
  async start() { this.running = true; started.push(this); }
  async stop() { this.running = false; }
}
const realLoad = Module._load;
Module._load = function (request, parent, isMain) {
  if (request === 'vscode') return fakeVscode;
  if (request === 'vscode-languageclient/node') return { LanguageClient: FakeClient, TransportKind: { stdio: 0 } };
  return realLoad.call(this, request, parent, isMain);
};

function check(cond, msg) {
  if (!cond) { console.error('FAIL: ' + msg); process.exit(1); }
}

(async () => {
  const ext = require(path.join(__dirname, '..', 'src', 'extension.js'));
  const context = { subscriptions: [] };
  await ext.activate(context);
  check(started.length === 1, 'one client started');
  const c = started[0];
  check(c.id === 'racesl', 'client id');
  check(c.serverOptions.run.command === '/opt/venv/bin/racesc', 'server path from racesl.serverPath');
  check(JSON.stringify(c.serverOptions.run.args) === JSON.stringify(['lsp', '--log-file', '/tmp/l.log']), 'args: lsp + serverArgs');
  check(c.serverOptions.run.transport === 0, 'stdio transport');
  check(c.clientOptions.documentSelector.some((s) => s.language === 'races' && s.scheme === 'file'), 'races documents');
  check(c.clientOptions.initializationOptions.debounceMs === 50, 'debounce passed on');
  check(c.clientOptions.initializationOptions.include[0] === 'mods', 'include passed on');
  check(typeof commands['racesl.restartServer'] === 'function', 'restart command registered');
  await commands['racesl.restartServer']();
  check(started.length === 2 && !c.running && started[1].running, 'restart stops and starts');
  // the code lens command: LSP JSON arguments → VS Code's references peek
  check(typeof commands['racesl.showComposers'] === 'function', 'showComposers registered');
  const loc = { uri: 'file:///w/b.races', range: { start: { line: 3, character: 4 }, end: { line: 3, character: 8 } } };
  await commands['racesl.showComposers']('file:///w/a.races', { line: 5, character: 4 }, [loc]);
  const [name, uri, pos, locs] = executed[0] || [];
  check(name === 'editor.action.showReferences', 'showReferences called');
  check(uri.uri === 'file:///w/a.races' && pos.line === 5 && pos.character === 4, 'uri and position converted');
  check(locs.length === 1 && locs[0].uri.uri === 'file:///w/b.races' && locs[0].range.start.line === 3 &&
        locs[0].range.end.character === 8, 'locations converted');
  config.serverPath = undefined;
  check(ext.serverOptions(fakeVscode.workspace.getConfiguration('racesl')).run.command === 'racesc', 'default racesc');
  await ext.deactivate();
  console.log(JSON.stringify({ ok: true, started: started.length }));
})().catch((e) => { console.error(e && e.stack ? e.stack : e); process.exit(2); });
