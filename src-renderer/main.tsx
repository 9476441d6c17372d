import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { prefetchFirstPage } from './features/transactions/useTransactionPages';
import { readChosenProfile } from './lib/profile-choice';
import { queryClient } from './lib/query';
import './styles.css';

// The app opens on Transactions: the remembered organisation's first rows are asked for now.
const remembered = readChosenProfile();
if (remembered) prefetchFirstPage(queryClient, remembered);

const root = document.getElementById('root');
if (!root) throw new Error('The page has no #root element.');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
