/**
 * The guest half of the bridge, evaluated in every fresh context before the program. It receives two
 * raw host functions as globals, builds frozen `vfs`, `console` and `external_*` objects over them,
 * deletes the raw globals, and evaluates to the function the host uses to run the program.
 *
 * Only strings cross: arguments leave as JSON text (checked strictly here, so nothing is dispatched
 * when a value is not JSON), answers come back as JSON text, or raw text for file contents.
 */

/** Raw globals the host defines before the bootstrap runs; the bootstrap deletes them. */
export const HOST_CALL = '__agentvfs_call'
export const HOST_LOG = '__agentvfs_log'

/** What the run function resolves to when the program returned `undefined` (JSON is never empty). */
export const UNDEFINED_RESULT = ''

/**
 * Strings cross as C strings, so a raw NUL would cut them short. A raw string that contains NUL, or
 * starts with U+0001, crosses as U+0001 + its JSON instead (JSON escapes both); everything else
 * crosses as is.
 */
export function encodeRaw(text: string): string {
  return text.indexOf('\u0000') >= 0 || text.charCodeAt(0) === 1 ? '\u0001' + JSON.stringify(text) : text
}

/** Guest source. `toolNames` pairs each global name with its tool id; `withVfs` adds the `vfs` global. */
export function bootstrapSource(toolNames: ReadonlyArray<readonly [string, string]>, withVfs: boolean): string {
  return `(function (g) {
'use strict';
const call = g.${HOST_CALL}, log = g.${HOST_LOG};
delete g.${HOST_CALL}; delete g.${HOST_LOG};
const OP = Object.prototype, AP = Array.prototype, getProto = Object.getPrototypeOf, isArray = Array.isArray;
const stringify = JSON.stringify, parse = JSON.parse, freeze = Object.freeze, define = Object.defineProperty;
const fromCharCode = String.fromCharCode;
function describe(v) {
  const c = v && v.constructor && v.constructor.name;
  return typeof c === 'string' && c ? 'a ' + c : 'an object with a custom prototype';
}
function toJson(value, what) {
  const json = stringify(value, function (key, v) {
    const t = typeof v;
    const at = key === '' ? '' : ' (at ' + stringify(key) + ')';
    if (t === 'function' || t === 'symbol' || t === 'bigint') throw new TypeError(what + ' is not JSON-serializable: found a ' + t + at);
    if (t === 'object' && v !== null) {
      const p = getProto(v);
      if (p !== OP && p !== AP && p !== null) throw new TypeError(what + ' is not JSON-serializable: found ' + describe(v) + at);
    }
    return v;
  });
  return json;
}
function send(op, args) {
  let json;
  try { json = toJson(args, 'the argument of ' + op); } catch (e) { return Promise.reject(e); }
  return call(op, json);
}
function parseAnswer(s) { return s === '' ? undefined : parse(s); }
function sendJson(op, args) { return send(op, args).then(parseAnswer); }
function decode(s) { return s.charCodeAt(0) === 1 ? parse(s.slice(1)) : s; }
function encode(s) { return s.indexOf('\\u0000') >= 0 || s.charCodeAt(0) === 1 ? '\\u0001' + stringify(s) : s; }
function sendVoid(op, args) { return send(op, args).then(function () {}); }
function bytesToBinary(u) {
  let s = '';
  for (let i = 0; i < u.length; i += 8192) s += fromCharCode.apply(null, u.subarray(i, i + 8192));
  return s;
}
${withVfs ? `const vfs = freeze({
  read: function read(path) { return send('vfs.read', [path]).then(decode); },
  readBytes: function readBytes(path) {
    return send('vfs.readBytes', [path]).then(function (s) {
      s = decode(s);
      const u = new Uint8Array(s.length);
      for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
      return u;
    });
  },
  write: function write(path, data) {
    if (typeof data === 'string') return sendVoid('vfs.write', [path, data]);
    if (data instanceof ArrayBuffer) data = new Uint8Array(data);
    if (ArrayBuffer.isView(data)) {
      const u = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      return sendVoid('vfs.writeBytes', [path, bytesToBinary(u)]);
    }
    if (data === undefined) return Promise.reject(new TypeError('vfs.write needs data: a string, bytes or a JSON value'));
    let text;
    try { text = toJson(data, 'the data of vfs.write'); } catch (e) { return Promise.reject(e); }
    return sendVoid('vfs.write', [path, text]);
  },
  list: function list(path, options) { return sendJson('vfs.list', [path, options === undefined ? null : options]); },
  stat: function stat(path) { return sendJson('vfs.stat', [path]); },
  exists: function exists(path) { return sendJson('vfs.exists', [path]); },
  remove: function remove(path, options) { return sendVoid('vfs.remove', [path, options === undefined ? null : options]); },
  glob: function glob(pattern) { return sendJson('vfs.glob', [pattern]); },
  grep: function grep(pattern, options) { return sendJson('vfs.grep', [pattern, options === undefined ? null : options]); },
});
define(g, 'vfs', { value: vfs, enumerable: false, writable: false, configurable: false });
` : ''}
function show(v) {
  if (typeof v === 'string') return v;
  if (v instanceof Error) return v.name + ': ' + v.message;
  try { const s = stringify(v); if (s !== undefined) return s; } catch (e) {}
  try { return String(v); } catch (e) { return '[unprintable]'; }
}
function logger(level) {
  return function () {
    const parts = [];
    for (let i = 0; i < arguments.length; i++) parts.push(show(arguments[i]));
    log(level, encode(parts.join(' ')));
  };
}
define(g, 'console', { value: freeze({ log: logger('log'), info: logger('info'), warn: logger('warn'), error: logger('error'), debug: logger('log') }), enumerable: false, writable: false, configurable: false });
const tools = ${JSON.stringify(toolNames)};
for (let i = 0; i < tools.length; i++) {
  const id = tools[i][1];
  const fn = function (input) { return sendJson('tool', input === undefined ? { id: id } : { id: id, input: input }); };
  define(g, tools[i][0], { value: freeze(fn), enumerable: false, writable: false, configurable: false });
}
return function run(program) {
  return program().then(function (value) {
    if (value === undefined) return ${JSON.stringify(UNDEFINED_RESULT)};
    return toJson(value, 'the result');
  });
};
})(globalThis)`
}

/** Inverse of {@link encodeRaw}. */
export function decodeRaw(text: string): string {
  return text.charCodeAt(0) === 1 ? (JSON.parse(text.slice(1)) as string) : text
}
