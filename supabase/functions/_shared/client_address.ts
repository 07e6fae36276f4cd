/**
 * The client's address: the socket's peer, or, when the deployment sits behind a trusted proxy,
 * the last entry of the header that proxy writes (`trustedHeader`, see env.ts's TRUST_PROXY). For
 * `x-forwarded-for` that is the entry the proxy appended (earlier ones are the caller's own claims);
 * for a header the proxy overwrites, such as Cloudflare's `cf-connecting-ip`, its one value.
 */
export function clientAddress(
  req: Request,
  info: Deno.ServeHandlerInfo | undefined,
  trustedHeader: string | false,
): string {
  if (trustedHeader) {
    const written = req.headers.get(trustedHeader)?.split(",").map((s) => s.trim())
      .filter(Boolean).at(-1);
    if (written) return written;
  }
  const addr = info?.remoteAddr;
  return addr && "hostname" in addr ? addr.hostname : "unknown";
}
