from mishkan_core.cli import main

raise SystemExit(main())
