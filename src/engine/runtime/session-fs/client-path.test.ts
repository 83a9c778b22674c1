import { describe, expect, it } from 'vitest';
import { normalizeClientPath } from './client-path.js';

const refused = (p: unknown, field = 'path') => {
  try {
    normalizeClientPath(p, field);
  } catch (err) {
    return { code: (err as { code?: string }).code, message: (err as Error).message };
  }
  return undefined;
};

describe('normalizeClientPath', () => {
  it('normalizes absolute session paths, with / for the root', () => {
    expect(normalizeClientPath('/')).toBe('/');
    expect(normalizeClientPath('//')).toBe('/');
    expect(normalizeClientPath('/a//b/./c/')).toBe('/a/b/c');
    expect(normalizeClientPath('/downloads/report.pdf')).toBe('/downloads/report.pdf');
  });

  it('keeps names that only look like dots', () => {
    expect(normalizeClientPath('/a/.../b')).toBe('/a/.../b');
    expect(normalizeClientPath('/a/..b')).toBe('/a/..b');
  });

  it('refuses missing, relative and parent-escaping paths as 400s naming the field', () => {
    expect(refused(undefined)).toEqual({ code: 'invalid_request', message: 'path: is required' });
    expect(refused('', 'dest_path')).toEqual({ code: 'invalid_request', message: 'dest_path: is required' });
    expect(refused(42)?.message).toBe('path: is required');
    expect(refused('a/b')?.message).toMatch(/absolute path starting with \//);
    expect(refused('/a/../../etc/passwd')?.message).toMatch(/'\.\.' segments/);
    expect(refused('/..')?.message).toMatch(/'\.\.' segments/);
  });

  it('refuses NUL bytes, drive letters, UNC paths and overlong paths', () => {
    expect(refused('/a\0b')?.message).toMatch(/NUL/);
    expect(refused('C:/Windows')?.message).toMatch(/drive letters/);
    expect(refused('c:\\x')?.message).toMatch(/drive letters/);
    expect(refused('\\\\server\\share')?.message).toMatch(/drive letters/);
    expect(refused('/' + 'a'.repeat(4096))?.message).toMatch(/too long/);
    expect(normalizeClientPath('/' + 'a'.repeat(4095))).toHaveLength(4096);
  });
});
