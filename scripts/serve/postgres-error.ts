/**
 * What to tell a person whose Postgres URL cannot be used, instead of pg-pool's stack trace: where it
 * came from (`setting`: DATABASE_URL for npm run serve, --store for npm start) and what to do instead.
 */
export function describePostgresFailure(
  url: string,
  error: unknown,
  setting = 'DATABASE_URL',
  instead = 'Unset DATABASE_URL to use PGlite in a folder instead.',
): string {
  const e = error as { code?: string; message?: string }
  const where = safeUrl(url)
  const why: Record<string, string> = {
    ECONNREFUSED: 'nothing listens there: start Postgres, or fix the host and port',
    ENOTFOUND: 'the host name does not resolve: fix the host',
    ETIMEDOUT: 'the connection timed out: check the host, the port and any firewall',
    '28P01': 'the password is wrong',
    '28000': 'the server refuses this user',
    '3D000': 'the database does not exist: create it (createdb) or fix its name',
  }
  const reason = (e.code && why[e.code]) ?? e.message ?? String(error)
  return `cannot use Postgres at ${where} (${setting}): ${reason}${e.code ? ` [${e.code}]` : ''}. ${instead}`
}

/** The URL without its password. */
function safeUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return 'an invalid URL'
  }
}
