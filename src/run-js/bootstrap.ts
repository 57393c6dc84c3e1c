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
/** Optional raw global: a synchronous `vfs.read` for workspaces served from memory (see bridge.ts). */
export const HOST_READ_NOW = '__agentvfs_read_now'

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

/** Host calls whose only argument is a path or pattern: it crosses as a raw string, not JSON. */
export const RAW_ARGUMENT_CALLS: ReadonlySet<string> = new Set(['vfs.read', 'vfs.readBytes', 'vfs.stat', 'vfs.exists', 'vfs.glob'])

/**
 * Guest source. `toolNames` pairs each global name with its tool id; `withVfs` adds the `vfs` global;
 * `readNow` makes `vfs.read` use the host's synchronous reader (an already-settled promise, no host
 * round trip) instead of a host call.
 * Kept terse on purpose: QuickJS parses ~8 KB per ms and this runs for every run.
 */
export function bootstrapSource(toolNames: ReadonlyArray<readonly [string, string]>, withVfs: boolean, readNow = false): string {
  return `(function(g){'use strict';
const call=g.${HOST_CALL},log=g.${HOST_LOG},now=g.${HOST_READ_NOW};delete g.${HOST_CALL};delete g.${HOST_LOG};delete g.${HOST_READ_NOW};
const O=Object,OP=O.prototype,AP=Array.prototype,gp=O.getPrototypeOf,S=JSON.stringify,P=JSON.parse,F=O.freeze,R=(e)=>Promise.reject(e);
const D=(o,k,v)=>O.defineProperty(o,k,{value:v});
function bad(what,found,key){return new TypeError(what+' is not JSON-serializable: found '+found+(key===''?'':' (at '+S(key)+')'))}
function toJson(value,what){let at='';try{return S(value,function(k,v){at=k;const t=typeof v;
if(t==='function'||t==='symbol'||t==='bigint')throw bad(what,'a '+t,k);
if(t==='object'&&v!==null){const p=gp(v);if(p!==OP&&p!==AP&&p!==null){const c=v.constructor&&v.constructor.name;throw bad(what,typeof c==='string'&&c?'a '+c:'an object with a custom prototype',k)}}
return v})}catch(e){if(e instanceof TypeError&&e.message==='circular reference')throw bad(what,'a circular reference',at);throw e}}
function send(op,args){let j;try{j=toJson(args,'the argument of '+op)}catch(e){return R(e)}return call(op,j)}
function raw(op,what){return function(p){return typeof p==='string'?call(op,p):R(new TypeError(op+': the '+what+' must be a string, got '+(p===null?'null':typeof p)))}}
const ans=(s)=>s===''?undefined:P(s),dec=(s)=>s.charCodeAt(0)===1?P(s.slice(1)):s,none=()=>{};
function bin(u){let s='';for(let i=0;i<u.length;i+=8192)s+=String.fromCharCode.apply(null,u.subarray(i,i+8192));return s}
${withVfs ? `const rd=raw('vfs.read','path'),rb=raw('vfs.readBytes','path'),st=raw('vfs.stat','path'),ex=raw('vfs.exists','path'),gl=raw('vfs.glob','pattern');
const opt=(o)=>o===undefined?null:o;
D(g,'vfs',F({
read:${readNow ? `(p)=>{if(typeof p!=='string')return rd(p);const r=now(p);return typeof r==='string'?Promise.resolve(dec(r)):R(r)}` : `(p)=>rd(p).then(dec)`},
readBytes:(p)=>rb(p).then((s)=>{s=dec(s);const u=new Uint8Array(s.length);for(let i=0;i<s.length;i++)u[i]=s.charCodeAt(i);return u}),
write(p,d){if(typeof d==='string')return send('vfs.write',[p,d]).then(none);
if(d instanceof ArrayBuffer)d=new Uint8Array(d);
if(ArrayBuffer.isView(d))return send('vfs.writeBytes',[p,bin(new Uint8Array(d.buffer,d.byteOffset,d.byteLength))]).then(none);
if(d===undefined)return R(new TypeError('vfs.write needs data: a string, bytes or a JSON value'));
let t;try{t=toJson(d,'the data of vfs.write')}catch(e){return R(e)}return send('vfs.write',[p,t]).then(none)},
list:(p,o)=>send('vfs.list',[p,opt(o)]).then(ans),
stat:(p)=>st(p).then(ans),
exists:(p)=>ex(p).then(ans),
remove:(p,o)=>send('vfs.remove',[p,opt(o)]).then(none),
glob:(p)=>gl(p).then(ans),
grep:(p,o)=>send('vfs.grep',[p,opt(o)]).then(ans)}));
` : ''}function show(v){if(typeof v==='string')return v;if(v instanceof Error)return v.name+': '+v.message;
try{const s=S(v);if(s!==undefined)return s}catch(e){}try{return String(v)}catch(e){return '[unprintable]'}}
function enc(s){return s.indexOf('\\u0000')>=0||s.charCodeAt(0)===1?'\\u0001'+S(s):s}
function logger(level){return function(){const a=[];for(let i=0;i<arguments.length;i++)a.push(show(arguments[i]));log(level,enc(a.join(' ')))}}
D(g,'console',F({log:logger('log'),info:logger('info'),warn:logger('warn'),error:logger('error'),debug:logger('log')}));
const tools=${JSON.stringify(toolNames)};
for(let i=0;i<tools.length;i++){const id=tools[i][1];D(g,tools[i][0],F(function(input){return send('tool',input===undefined?{id:id}:{id:id,input:input}).then(ans)}))}
return function run(program,settled){return program().then(function(v){settled();return v===undefined?${JSON.stringify(UNDEFINED_RESULT)}:toJson(v,'the result')},function(e){settled();throw e})};
})(globalThis)`
}

/** Inverse of {@link encodeRaw}. */
export function decodeRaw(text: string): string {
  return text.charCodeAt(0) === 1 ? (JSON.parse(text.slice(1)) as string) : text
}
