// Which host names and addresses stay on this machine: what a server may listen on without being told it reaches
// other machines, and what a Host or Origin header may name for a loopback server (DNS rebinding protection).

/** `localhost` (and `*.localhost`), 127.0.0.0/8 and ::1, bracketed or not; case-insensitive. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase()
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    h === '::1' ||
    h === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
  )
}
