/** Every item of a paginated list of the official client (it follows the pages itself). */
export async function collect<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of pages) out.push(item);
  return out;
}
