// Two pages: agent-vfs/react's hooks, and useChat over agent-vfs/ai-sdk-ui's transport.
export default { build: { rollupOptions: { input: ['react.html', 'chat.html'] } } }
