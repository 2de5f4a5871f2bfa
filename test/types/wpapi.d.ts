// wpapi ships no types; the tests use it dynamically, as its users do.
declare module 'wpapi' {
  const WPAPI: any
  export default WPAPI
}
