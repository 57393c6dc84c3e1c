import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Takes the data folder for this process: PGlite is a single-process database, and two servers on
 * one folder corrupt it. The lock is a file holding the owner's pid; a lock whose process is gone
 * is taken over. Returns the release function (also run on exit).
 */
export function lockDataFolder(dir: string): () => void {
  const path = join(dir, 'serve.lock')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: 'wx' })
      let released = false
      const release = () => {
        if (released) return
        released = true
        rmSync(path, { force: true })
      }
      process.once('exit', release)
      return release
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const owner = Number(readFileSync(path, 'utf8').trim())
      if (Number.isInteger(owner) && owner > 0 && alive(owner)) {
        throw new Error(
          `${dir} is used by another server (pid ${owner}; ${path}): stop it, or give this one its own folder with AGENT_VFS_DATA=another-folder (several servers can share Postgres: DATABASE_URL)`,
        )
      }
      rmSync(path, { force: true }) // its process is gone
    }
  }
  throw new Error(`could not lock ${dir}: another server keeps taking ${path}`)
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
