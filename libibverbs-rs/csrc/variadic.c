/* Placeholder; filled in below. */
