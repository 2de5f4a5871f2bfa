/** The part of madge's API the import-cycle test uses (madge ships no types). */
declare module 'madge' {
  interface MadgeResult {
    circular(): string[][]
    obj(): Record<string, string[]>
  }
  interface MadgeConfig {
    fileExtensions?: string[]
    tsConfig?: string
    detectiveOptions?: Record<string, unknown>
  }
  function madge(path: string | string[], config?: MadgeConfig): Promise<MadgeResult>
  export default madge
}
