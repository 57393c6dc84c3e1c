import { Agent } from '@mastra/core/agent'
import { AgentController } from '@mastra/core/agent-controller'
import { RequestContext } from '@mastra/core/request-context'
import { InMemoryStore } from '@mastra/core/storage'
import { Workspace, createWorkspaceTools } from '@mastra/core/workspace'
import { describe, expect, it } from 'vitest'
import { memoryStore, vfsRegistry, type VfsStore } from '../../src/index.js'
import { scriptedModel } from '../../src/agent/index.js'
import { VfsFilesystem, vfsWorkspaceResolver } from '../../src/mastra/index.js'

/** A real memory store that counts loads (one load = one hydrate of a workspace). */
function countingStore(): { store: VfsStore; loads: string[] } {
  const inner = memoryStore()
  const loads: string[] = []
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (prop !== 'load' || typeof value !== 'function') return value
      return (namespace: string, scope: string) => (loads.push(`${namespace}/${scope}`), value.call(target, namespace, scope))
    },
  })
  return { store, loads }
}

/** A request context as AgentController builds it for a session. */
function sessionContext(resourceId: string, scope?: string): RequestContext {
  const rc = new RequestContext()
  rc.set('controller', {
    controllerId: 'c',
    resourceId,
    scope,
    threadId: null,
    session: { id: 'c', ownerId: 'c', modeId: 'm', modelId: '' },
  })
  return rc
}

const vfsOf = (ws: Workspace) => (ws.filesystem as VfsFilesystem).vfs

describe('vfsWorkspaceResolver', () => {
  it('memoises: many calls for one session give one Workspace, one Vfs, one hydrate', async () => {
    const { store, loads } = countingStore()
    const resolve = vfsWorkspaceResolver({ store, namespace: 'app' })
    const rc = sessionContext('user-1')
    const all = await Promise.all(Array.from({ length: 25 }, () => resolve({ requestContext: rc })))
    for (let i = 0; i < 10; i++) all.push(await resolve({ requestContext: sessionContext('user-1') }))
    expect(new Set(all).size).toBe(1)
    expect(all[0]).toBeInstanceOf(Workspace)
    expect(all[0].filesystem).toBeInstanceOf(VfsFilesystem)
    expect(new Set(all.map(vfsOf)).size).toBe(1)
    expect(vfsOf(all[0]).scope).toBe('user-1')
    expect(loads).toEqual(['app/user-1'])

    // Other sessions get their own scope; a session scope is part of the key.
    const other = await resolve({ requestContext: sessionContext('user-2') })
    const scoped = await resolve({ requestContext: sessionContext('user-1', 'project-a') })
    expect(new Set([all[0], other, scoped]).size).toBe(3)
    expect([vfsOf(other).scope, vfsOf(scoped).scope]).toEqual(['user-2', 'user-1:project-a'])
    // Without a controller context: the default scope.
    expect(vfsOf(await resolve({ requestContext: new RequestContext() })).scope).toBe('default')
    expect(resolve.cached().sort()).toEqual(['default', 'user-1', 'user-1:project-a', 'user-2'])
    expect(loads).toHaveLength(4)

    // Evicted scopes reopen (and rehydrate) with their data.
    await vfsOf(all[0]).writeFile('/kept.md', 'kept')
    await resolve.evict('user-1')
    const again = await resolve({ requestContext: rc })
    expect(again).not.toBe(all[0])
    expect(await vfsOf(again).readFile('/kept.md', 'utf8')).toBe('kept')
    expect(loads.filter(l => l === 'app/user-1')).toHaveLength(2)
    await resolve.closeAll()
    expect(resolve.cached()).toEqual([])
  })

  it('shares a registry, applies scopeOf, view, readOnly and workspace settings', async () => {
    const registry = vfsRegistry({ store: memoryStore() })
    const base = await registry.open('app', 'team-x')
    await base.writeFile('/skills/greet/SKILL.md', '---\nname: greet\ndescription: Greets\n---\nSay hi.\n')
    const resolve = vfsWorkspaceResolver({
      registry,
      namespace: 'app',
      scopeOf: ({ resourceId }) => `team-${resourceId?.split('@')[1] ?? 'none'}`,
      readOnly: true,
      workspace: ({ scope }) => ({ name: `ws ${scope}`, skills: ['/skills'] }),
    })
    const ws = await resolve({ requestContext: sessionContext('ann@x') })
    expect(resolve.scopeOf(sessionContext('bob@x'))).toBe('team-x')
    expect(await resolve({ requestContext: sessionContext('bob@x') })).toBe(ws)
    // The same scope of the same registry: what the base handle wrote is there.
    expect([vfsOf(ws).namespace, vfsOf(ws).scope]).toEqual([base.namespace, base.scope])
    expect(await vfsOf(ws).exists('/skills/greet/SKILL.md')).toBe(true)
    expect(ws.name).toBe('ws team-x')
    expect(ws.filesystem?.readOnly).toBe(true)
    expect((await ws.skills!.list()).map(s => s.name)).toEqual(['greet'])
    expect(() => vfsWorkspaceResolver({ namespace: 'app' })).toThrow(/registry.*store/)
  })

  it('a failed open is not cached', async () => {
    let fail = true
    const inner = memoryStore()
    const store = new Proxy(inner, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver)
        if (prop !== 'load') return value
        return async (ns: string, scope: string) => {
          if (fail) throw new Error('store down')
          return value.call(target, ns, scope)
        }
      },
    })
    const resolve = vfsWorkspaceResolver({ store, namespace: 'app' })
    await expect(resolve({ requestContext: sessionContext('u') })).rejects.toThrow()
    fail = false
    expect(await resolve({ requestContext: sessionContext('u') })).toBeInstanceOf(Workspace)
  })

  it('drives an AgentController session: the factory is called many times, the session keeps one workspace', async () => {
    const { store, loads } = countingStore()
    const resolve = vfsWorkspaceResolver({ store, namespace: 'ctl' })
    let factoryCalls = 0
    const counted = (args: { requestContext: RequestContext }) => (factoryCalls++, resolve(args))
    const model = scriptedModel(view => {
      if (view.call === 0)
        return {
          toolCalls: [{ toolName: 'mastra_workspace_write_file', input: { path: 'notes/hello.md', content: 'hello from the session' } }],
        }
      if (view.call === 1) return { toolCalls: [{ toolName: 'mastra_workspace_read_file', input: { path: 'notes/hello.md' } }] }
      return { text: `read: ${String(view.last[0]?.value ?? '')}` }
    })
    const agent = new Agent({ id: 'worker', name: 'worker', instructions: 'work', model })
    const controller = new AgentController({
      id: 'ctl',
      storage: new InMemoryStore(),
      initialState: { yolo: true },
      modes: [{ id: 'default', name: 'Default', default: true, agent }],
      workspace: counted,
    })
    await controller.init()
    const session = await controller.createSession({ resourceId: 'alice' })
    const events: string[] = []
    session.subscribe((e: { type: string }) => void events.push(e.type))
    await session.sendMessage({ content: 'write a note' })

    const ws = await resolve({ requestContext: sessionContext('alice') })
    expect(await vfsOf(ws).readFile('/notes/hello.md', 'utf8')).toBe('hello from the session')
    expect(session.getWorkspace()).toBe(ws)
    expect(await controller.resolveWorkspace({ session })).toBe(ws)
    expect(factoryCalls).toBeGreaterThan(3)
    expect(loads).toEqual(['ctl/alice'])
    expect(resolve.cached()).toEqual(['alice'])
    expect(events).toContain('agent_end')
    await controller.destroy()
  })

  it('keeps at most maxCached sessions in memory; an evicted session in use keeps working through Mastra and loses no writes', async () => {
    const { store, loads } = countingStore()
    const resolve = vfsWorkspaceResolver({ store, namespace: 'lru', maxCached: 2 })
    const alice = await resolve({ requestContext: sessionContext('alice') })
    await resolve({ requestContext: sessionContext('bob') })
    await resolve({ requestContext: sessionContext('alice') }) // alice is used again: bob is the oldest
    await resolve({ requestContext: sessionContext('carol') })
    expect(resolve.cached().sort()).toEqual(['alice', 'carol'])
    await resolve({ requestContext: sessionContext('dave') })
    expect(resolve.cached().sort()).toEqual(['carol', 'dave'])
    // alice's session still holds its Workspace: Mastra's own file tools write through it.
    const tools = await createWorkspaceTools(alice)
    const ctx = { workspace: alice, observe: { span: (_n: string, f: () => unknown) => f(), log() {} } } as never
    expect(await tools.mastra_workspace_write_file.execute({ path: 'notes/after-eviction.md', content: 'still here' }, ctx)).toMatch(
      /Wrote/,
    )
    // Durable: another process (a fresh resolver on the same store) reads it.
    const elsewhere = vfsWorkspaceResolver({ store, namespace: 'lru' })
    expect(await vfsOf(await elsewhere({ requestContext: sessionContext('alice') })).readFile('/notes/after-eviction.md', 'utf8')).toBe(
      'still here',
    )
    expect(loads.filter(l => l === 'lru/alice').length).toBeGreaterThanOrEqual(2)
    expect(() => vfsWorkspaceResolver({ store, namespace: 'lru', maxCached: 0 })).toThrow(/maxCached/)
  })
})
