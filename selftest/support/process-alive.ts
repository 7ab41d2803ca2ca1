/** Whether a process runs: its /proc entry is there and it is no zombie waiting to be reaped (Linux). */
import { readFileSync } from 'node:fs';

export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
