// Statistics of the bench figures.
function sorted(values: number[]): number[] {
  return [...values].sort((a, b) => a - b)
}
export function median(values: number[]): number {
  const s = sorted(values)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}
/** Nearest-rank percentile. */
export function percentile(values: number[], p: number): number {
  const s = sorted(values)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!
}
export function summary(values: number[]): {
  n: number
  median: number
  p95: number
  min: number
  max: number
} {
  return {
    n: values.length,
    median: median(values),
    p95: percentile(values, 95),
    min: Math.min(...values),
    max: Math.max(...values)
  }
}
