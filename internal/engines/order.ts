// Moved to internal/base/order.ts (the kernel needs it too, and the kernel does not import engines).
// This re-export keeps branches written before the move compiling; phase 2 of issue 17 removes it.
export { byText } from '../base/order.js'
