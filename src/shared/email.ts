/** A pragmatic email check: one @, a dot in the domain, no spaces, at most 254 characters (RFC 5321). */
export const isEmailAddress = (value: string): boolean => value.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
