/**
 * Where a service happens when it is not at the host's own premises (the guest's address, say):
 * the members SchCP §5.2 gives a place. The SchCP wire types and the core's contract both carry
 * it as is, so it is declared once here, below both.
 */
export interface Place {
  readonly name?: string;
  readonly street?: string;
  readonly locality?: string;
  readonly region?: string;
  readonly postal_code?: string;
  readonly country?: string;
}
