/** Requests answered in the current second, and in all, for a profile that rate-limits. */
export class RateWindow {
  private second = 0;
  private count = 0;
  private total = 0;

  /** Counts one request; true when it is the `n`th, the 2`n`th...: a share refused whatever the pace. */
  isNth(n: number): boolean {
    this.total += 1;
    return this.total % n === 0;
  }

  /** Counts one request; true when it is past `perSecond` in its second. */
  exceeds(perSecond: number, now = Date.now()): boolean {
    const second = Math.floor(now / 1000);
    if (second !== this.second) {
      this.second = second;
      this.count = 0;
    }
    this.count += 1;
    return this.count > perSecond;
  }
}
