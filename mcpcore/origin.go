package mcpcore
