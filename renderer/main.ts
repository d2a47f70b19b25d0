import { createApp } from 'vue';
import { createPinia } from 'pinia';
import App from './App.vue';
import { registerGrid } from './components/grids/grid-setup';
import { warmUpGrid } from './components/grids/grid-warm-up';
import { connectClient } from './api/heapscope-client';
import { describeError } from './api/error-messages';
import './styles/base.css';

/**
 * Start-up: register AG Grid, connect to the back end (preload bridge in Electron, WebSocket in
 * browser mode) while a throw-away grid warms AG Grid's code up, then mount. A failed connection
 * still mounts a page that says why, instead of a blank window.
 */
async function start(): Promise<void> {
  registerGrid();
  const connected = connectClient();
  // at most a second: start-up never waits on a warm-up that is slower than expected
  const warm = Promise.race([warmUpGrid(), new Promise((r) => setTimeout(r, 1000))]);
  try {
    await connected;
  } catch (e) {
    const { title, detail } = describeError(e);
    const box = document.getElementById('app');
    if (box) {
      box.innerHTML = '';
      const h = document.createElement('h2');
      h.textContent = `Heapscope cannot reach its back end: ${title}`;
      const p = document.createElement('p');
      p.textContent = detail;
      box.append(h, p);
      box.style.padding = '24px';
    }
    return;
  }
  await warm;
  const app = createApp(App);
  app.use(createPinia());
  app.mount('#app');
}

void start();
