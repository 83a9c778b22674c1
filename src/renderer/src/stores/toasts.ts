/**
 * Toasts: the one place failures and confirmations appear. `reportError` shows the Error
 * object's message (what the server said) for every failed call.
 */
import { create } from 'zustand';
import { errorMessage } from '../transport/transport';

export interface Toast {
  id: number;
  kind: 'error' | 'success' | 'info';
  message: string;
}

interface ToastState {
  toasts: Toast[];
  push(kind: Toast['kind'], message: string): void;
  dismiss(id: number): void;
}

let nextId = 1;

export const useToasts = create<ToastState>((set, get) => ({
  toasts: [],
  push(kind, message) {
    const id = nextId++;
    set({ toasts: [...get().toasts.slice(-4), { id, kind, message }] });
    // Errors stay until dismissed: the operator may need to read or copy them.
    if (kind !== 'error') setTimeout(() => get().dismiss(id), 4000);
  },
  dismiss(id) {
    set({ toasts: get().toasts.filter((t) => t.id !== id) });
  },
}));

export function reportError(err: unknown): void {
  useToasts.getState().push('error', errorMessage(err));
}

export function notify(message: string): void {
  useToasts.getState().push('success', message);
}
