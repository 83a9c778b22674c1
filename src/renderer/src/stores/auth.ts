/**
 * Web console sign-in state. Signing in posts the API key once to `/console/session`; the
 * server answers with an HttpOnly cookie, and the key is dropped from memory right after.
 * Only masked metadata (name, masked key) is kept. Desktop mode is always "signed in": main
 * holds the keys.
 */
import { create } from 'zustand';
import { transport } from '../transport';
import { errorMessage } from '../transport/transport';
import { api } from '../transport/api-client';
import type { SignedInInfo } from '../../../shared/wire/console';

export type SignedIn = SignedInInfo;

interface AuthState {
  status: 'checking' | 'signed-out' | 'signed-in';
  who: SignedIn | null;
  error: string | null;
  busy: boolean;
  check(): Promise<void>;
  signIn(apiKey: string): Promise<boolean>;
  signOut(): Promise<void>;
  /** Called by the transport on any 401. */
  expired(): void;
}

export const useAuth = create<AuthState>((set, get) => ({
  status: 'checking',
  who: null,
  error: null,
  busy: false,
  async check() {
    if (transport().kind === 'desktop') return set({ status: 'signed-in' });
    try {
      const who = await api.call('GET /console/session');
      set({ status: 'signed-in', who, error: null });
    } catch {
      set({ status: 'signed-out', who: null });
    }
  },
  async signIn(apiKey) {
    set({ busy: true, error: null });
    try {
      const who = await api.call('POST /console/session', { body: { api_key: apiKey } });
      set({ status: 'signed-in', who, busy: false });
      return true;
    } catch (err) {
      set({ busy: false, error: errorMessage(err), status: 'signed-out' });
      return false;
    }
  },
  async signOut() {
    try {
      await api.call('DELETE /console/session');
    } finally {
      set({ status: 'signed-out', who: null, error: null });
    }
  },
  expired() {
    if (get().status === 'signed-in') set({ status: 'signed-out', who: null, error: 'Your console session ended. Sign in again.' });
  },
}));
