// Ordering by code unit, not locale: deterministic on every machine (capabilities
// must be byte-identical), and it spares the start-up cost of loading ICU collation.

export const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
