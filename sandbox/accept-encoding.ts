/** Whether a request's Accept-Encoding allows a gzip answer (RFC 9110 §12.5.3). */

/** gzip (or x-gzip, or *) listed with a weight above 0; no header: no compression, as most servers do. */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  const weights = new Map<string, number>();
  for (const member of header.split(',')) {
    const [coding = '', ...parameters] = member.split(';').map((part) => part.trim().toLowerCase());
    const weight = parameters.find((parameter) => parameter.startsWith('q='));
    weights.set(coding, weight === undefined ? 1 : Number(weight.slice(2)));
  }
  return (weights.get('gzip') ?? weights.get('x-gzip') ?? weights.get('*') ?? 0) > 0;
}
