/** Express 4, installed under the npm alias `express4`; its API is a subset of 5's types as far as the tests go. */
declare module 'express4' {
  import express from 'express'
  export default express
}
