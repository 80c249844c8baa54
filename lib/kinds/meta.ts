/** An object's name and namespace ("default" when unset), as every kind's item carries them. */
export function metaOf(object: { metadata?: { name?: string; namespace?: string } }): {
  name: string;
  namespace: string;
} {
  return { name: object.metadata?.name ?? "", namespace: object.metadata?.namespace || "default" };
}
