/**
 * Imported for its effect, before test/http/all.ts: the suites that follow speak TEC's names
 * (`tribe/events/v1`, `wpml_language`) to routers built with `tecNames` (harness.ts).
 */
import { speakTecNames } from './harness.js'

speakTecNames()
