import { createSessionClient } from 'agent-vfs/client'

/** The page's session: the one named in the URL (a reload resumes it), or a fresh one. */
export async function pageSession() {
  let [id, token] = location.hash.slice(1).split(':')
  if (!id) {
    ;({ id, token } = await (await fetch('/new-session')).json())
    history.replaceState(null, '', `#${id}:${token}`)
  }
  return { id, client: createSessionClient({ baseUrl: `${location.origin}/api`, token }) }
}
