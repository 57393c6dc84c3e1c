// A TypeScript app type-checks against the published declarations. Each @ts-expect-error fails the
// check if the type it guards resolved to `any` (an entry whose declarations do not resolve).
import { createRunJs, isVfsError, memoryStore, openVfs, scopeRun, VfsError, type RunJsResult, type Vfs } from 'agent-vfs'
import { createWorkspaceTools, runJsTool, scriptedModel, type TaskResult } from 'agent-vfs/agent'
import strip from 'agent-vfs/run-js/typescript'
import { workerdEngine } from 'agent-vfs/run-js/workerd'

export async function app(): Promise<void> {
  const vfs: Vfs = await openVfs({ store: memoryStore(), namespace: 'types', scope: 's' })
  const runJs = createRunJs({ vfs: scopeRun(vfs, { runId: 'r' }), typescript: () => import('agent-vfs/run-js/typescript') })
  const r: RunJsResult = await runJs.run('return 1')
  // @ts-expect-error success is a boolean
  const wrong: string = r.success
  const error = await vfs.readFile('/missing').catch((e: unknown) => e)
  if (isVfsError(error, 'ENOENT')) {
    // @ts-expect-error code is a union of error codes
    const code: number = error.code
    void code
  }
  void [wrong, VfsError, workerdEngine, createWorkspaceTools, scriptedModel]
  const tool = runJsTool(runJs)
  // @ts-expect-error the tool's description is a string
  const description: number = tool.description
  const status = (undefined as unknown as TaskResult).status
  // @ts-expect-error status is a string union
  const n: number = status
  // @ts-expect-error the stripper takes source text
  strip(42)
  const tools = createWorkspaceTools({ vfs: scopeRun(vfs, { runId: 'types' }) })
  type WriteInput = Parameters<(typeof tools)['write_file']['execute']>[0]
  const input: WriteInput = 1
  // @ts-expect-error a workspace tool's input is not `any` (it is validated by execute): no unchecked property
  void input.path
  type ContractOfStream = Awaited<ReturnType<ReturnType<typeof scriptedModel>['doStream']>>['stream']
  // @ts-expect-error a scripted model streams typed parts, not `any`
  const part: number = undefined as unknown as ContractOfStream extends ReadableStream<infer P> ? P : never
  void [description, n, part]
}
