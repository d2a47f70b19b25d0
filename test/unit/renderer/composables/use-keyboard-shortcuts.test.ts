import { describe, expect, it } from 'vitest';
import { shortcutFor } from '../../../../renderer/composables/use-keyboard-shortcuts';

const key = (k: string, mods: Partial<Record<'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey', boolean>> = {}) => ({ key: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods });

describe('shortcutFor', () => {
  it('maps Ctrl and Cmd alike', () => {
    expect(shortcutFor(key('o', { ctrlKey: true }))).toBe('open');
    expect(shortcutFor(key('o', { metaKey: true }))).toBe('open');
    // Caps Lock gives 'O' without Shift: still Open; Shift+O is Capture from process…
    expect(shortcutFor(key('O', { ctrlKey: true }))).toBe('open');
    expect(shortcutFor(key('O', { ctrlKey: true, shiftKey: true }))).toBe('capture');
    expect(shortcutFor(key('O', { metaKey: true, shiftKey: true }))).toBe('capture');
    expect(shortcutFor(key('s', { ctrlKey: true }))).toBe('save');
    expect(shortcutFor(key('S', { ctrlKey: true, shiftKey: true }))).toBeNull();
    expect(shortcutFor(key('w', { metaKey: true }))).toBe('closeTab');
    expect(shortcutFor(key('f', { ctrlKey: true }))).toBe('focusFilter');
  });
  it('tab cycling: Ctrl+Tab, Ctrl+Shift+Tab and the PageDown/PageUp fallbacks', () => {
    expect(shortcutFor(key('Tab', { ctrlKey: true }))).toBe('nextTab');
    expect(shortcutFor(key('Tab', { ctrlKey: true, shiftKey: true }))).toBe('previousTab');
    expect(shortcutFor(key('PageDown', { ctrlKey: true }))).toBe('nextTab');
    expect(shortcutFor(key('PageUp', { ctrlKey: true }))).toBe('previousTab');
    expect(shortcutFor(key('w', { altKey: true }))).toBe('closeTab');
  });
  it('Ctrl/Cmd+G goes to an address', () => {
    expect(shortcutFor(key('g', { ctrlKey: true }))).toBe('goToAddress');
    expect(shortcutFor(key('G', { metaKey: true }))).toBe('goToAddress');
    expect(shortcutFor(key('g'))).toBeNull();
    expect(shortcutFor(key('G', { ctrlKey: true, shiftKey: true }))).toBeNull();
  });
  it('leaves plain typing alone', () => {
    expect(shortcutFor(key('o'))).toBeNull();
    expect(shortcutFor(key('f'))).toBeNull();
    expect(shortcutFor(key('Tab'))).toBeNull();
    expect(shortcutFor(key('o', { ctrlKey: true, altKey: true }))).toBeNull();
  });
});

describe('back and forward inputs', () => {
  it('Alt+←/→ are Back/Forward; with Ctrl, Cmd or Shift they are not', async () => {
    expect(shortcutFor(key('ArrowLeft', { altKey: true }))).toBe('back');
    expect(shortcutFor(key('ArrowRight', { altKey: true }))).toBe('forward');
    expect(shortcutFor(key('ArrowLeft'))).toBeNull();
    expect(shortcutFor(key('ArrowLeft', { altKey: true, shiftKey: true }))).toBeNull();
    expect(shortcutFor(key('ArrowRight', { altKey: true, ctrlKey: true }))).toBeNull();
    const { mouseNavFor } = await import('../../../../renderer/composables/use-keyboard-shortcuts');
    expect(mouseNavFor({ button: 3 })).toBe('back');
    expect(mouseNavFor({ button: 4 })).toBe('forward');
    expect(mouseNavFor({ button: 0 })).toBeNull();
    expect(mouseNavFor({ button: 1 })).toBeNull();
  });
});
