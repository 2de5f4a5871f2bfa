/**
 * `hide_subsequent_recurrences`, shared by every backend: of each series only the member that
 * starts first among the events the list's other filters (window included) selected stays;
 * lone events stay. One pass to find each series' first, one to filter: linear in the matches.
 */
export interface SeriesKey {
  id: number
  /** 0 for a lone event. */
  seriesId: number
  start: string
}

export function firstOfEachSeries<T>(matched: readonly T[], key: (item: T) => SeriesKey): T[] {
  const first = new Map<number, SeriesKey>()
  for (const item of matched) {
    const k = key(item)
    if (!k.seriesId) continue
    const seen = first.get(k.seriesId)
    if (!seen || k.start < seen.start || (k.start === seen.start && k.id < seen.id)) first.set(k.seriesId, k)
  }
  return matched.filter((item) => {
    const k = key(item)
    return !k.seriesId || first.get(k.seriesId)!.id === k.id
  })
}
