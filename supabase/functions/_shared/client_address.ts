/**
 * The client's address: the socket's peer, or, only when the deployment sits behind a trusted
 * proxy, the last X-Forwarded-For hop (the one that proxy appended; earlier hops are the caller's
 * own claims and could be forged to dodge the per-IP budget).
 */
export function clientAddress(
  req: Request,
  info: Deno.ServeHandlerInfo | undefined,
  trustProxy: boolean,
): string {
  if (trustProxy) {
    const forwarded = req.headers.get("x-forwarded-for")?.split(",").map((s) => s.trim())
      .filter(Boolean).at(-1);
    if (forwarded) return forwarded;
  }
  const addr = info?.remoteAddr;
  return addr && "hostname" in addr ? addr.hostname : "unknown";
}
