// picomatch ships no typings; this declares the part dacli uses (the POSIX build: paths from git use `/`).
declare module 'picomatch/posix.js' {
  interface Options {
    dot?: boolean
    nocase?: boolean
  }
  interface Picomatch {
    (glob: string, options?: Options): (path: string) => boolean
    makeRe(glob: string, options?: Options): RegExp
    scan(glob: string, options?: Options): { base: string; glob: string; isGlob: boolean; negated: boolean }
  }
  const picomatch: Picomatch
  export default picomatch
}
